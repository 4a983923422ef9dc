/**
 * Warm pools of harness adapters (agent processes kept for the next session), so a runner
 * can stop them all where it knows they can no longer be reused: Jest gives each test file
 * its own modules, so a file's pools serve no later file, and the preset stops them when
 * the file ends instead of letting them idle. The processes a pool starts are announced to
 * whoever listens (the runtime, which puts them in the run's process ledger).
 *
 * @example
 * ```ts
 * registerWarmPool(stopWarmAgents);
 * announceWarmProcess({ pid: child.pid, label: "my-agent (warm)", command: executable });
 * ```
 */
import { stopSpareServers } from "../wire/spare-servers.js";

/** A process a warm pool started outside any kit. */
export interface WarmProcess {
  readonly pid: number;
  readonly label: string;
  readonly command: string;
  /**
   * The folder the process keeps its home in (what the agent wrote for its sessions, an
   * echoed credential too): in the run's folder ledger, so a later run's sweep removes it
   * when this run is killed before its pools stop.
   */
  readonly folder?: string;
}

const pools = new Set<() => Promise<void>>();
const listeners = new Set<(started: WarmProcess) => void>();

/**
 * Registers `stop`, which stops every process of one adapter's warm pool (a {@link WarmPool}
 * does it itself). Returns a function that unregisters it.
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
  // The spare servers waiting for the next session of a warm agent go with the agents.
  await stopSpareServers();
}

/**
 * Tells the listeners about a process a warm pool started outside any kit, as a kit tells
 * the runtime about its own: the preset records it in the run's process ledger, so an
 * interrupted run (Ctrl-C in band, a killed worker) stops it too.
 */
export function announceWarmProcess(started: {
  readonly pid: number | undefined;
  readonly label: string;
  readonly command: string;
  readonly folder?: string;
}): void {
  const { pid, label, command, folder } = started;
  if (pid === undefined) return;
  const process: WarmProcess =
    folder === undefined ? { pid, label, command } : { pid, label, command, folder };
  for (const listener of [...listeners]) listener(process);
}

/**
 * Calls `listener` with every process {@link announceWarmProcess} announces (the runtime
 * listens, so this module needs no runtime). Returns the function that stops it.
 */
export function onWarmProcess(listener: (started: WarmProcess) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
