/**
 * Warm pools of harness adapters (agent processes kept for the next session), so a runner
 * can stop them all where it knows they can no longer be reused: Jest gives each test file
 * its own modules, so a file's pools serve no later file, and the preset stops them when
 * the file ends instead of letting them idle.
 */
import { defaultRuntime } from "../runtime/runtime.js";

const pools = new Set<() => Promise<void>>();

/**
 * Registers `stop`, which stops every process of one adapter's warm pool (an adapter calls
 * it once, when its pool module loads). Returns a function that unregisters it.
 *
 * @example
 * ```ts
 * registerWarmPool(stopWarmAgents);
 * ```
 */
export function registerWarmPool(stop: () => Promise<void>): () => void {
  pools.add(stop);
  return () => pools.delete(stop);
}

/**
 * Stops every registered warm pool: each adapter stops its idle and busy agents, their
 * process groups and homes. A pool that fails to stop does not keep the others running.
 */
export async function stopWarmPools(): Promise<void> {
  await Promise.allSettled([...pools].map((stop) => stop()));
}

/**
 * Tells the runner about a process a warm pool started outside any kit, as a kit tells it
 * about its own: the preset records it in the run's process ledger, so an interrupted run
 * (Ctrl-C in band, a killed worker, a run that died before its next one) stops it too.
 *
 * @example
 * ```ts
 * announceWarmProcess({ pid: child.pid, label: "my-agent (warm)", command: executable });
 * ```
 */
export function announceWarmProcess(started: {
  readonly pid: number | undefined;
  readonly label: string;
  readonly command: string;
}): void {
  const { pid, label, command } = started;
  if (pid === undefined) return;
  defaultRuntime().notify((observer) => observer.processStarted?.({ pid, label, command }));
}
