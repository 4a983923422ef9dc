/**
 * The start of a session on an agent process of its own (a cold start), as every adapter
 * does it: a fresh temporary folder of the session for the agent's homes, the adapter's
 * plan of the process in it (homes, a copied login, the command line), a start the session
 * tore down meanwhile refused before anything runs, the process spawned by the launch (so
 * the session's kit owns it) and wrapped in the adapter's client, then the adapter's start
 * (handshake, MCP servers) under {@link startOrUndo}: whatever fails is one
 * {@link HarnessStartError} in the agent's words with its stderr section, thrown after the
 * process is stopped. The warm counterpart is {@link openWarmLease}.
 *
 * @example
 * ```ts
 * const session = await openCold({
 *   harness: "my-agent", names, launch, prefix: "m3-my-agent-",
 *   plan: async (root) => ({ process: { label: "my-agent", command, args, env: { ...launch.env, HOME: root }, cwd: launch.workspace } }),
 *   client: (child) => new MyClient(child),
 *   start: async (client) => new MySession(client, await client.request("session/new")),
 * });
 * ```
 */
import { HarnessStartError, type HarnessLaunch } from "../harness/contract.js";
import type { ManagedProcess, ProcessLaunch } from "../processes/managed-process.js";
import type { AgentNames } from "./agent-names.js";
import type { AgentProcess } from "./agent-process.js";
import { startOrUndo, tornDown, type StartFailureContext } from "./start-failure.js";

/** How long a process whose start failed gets to exit once its stdin closed, by default. */
export const FAILED_START_GRACE_MS = 300;

/** The adapter's plan of a cold start: what the process is spawned with, and what `start` needs besides. */
export interface ColdPlan {
  readonly process: ProcessLaunch;
}

/** What {@link openCold} needs: who is starting, and how the adapter plans, wraps and starts. */
export interface ColdOpening<P extends ColdPlan, C extends { readonly agent: AgentProcess }, T> {
  /** The harness's name in errors, e.g. `my-agent`. */
  readonly harness: string;
  readonly names: AgentNames;
  /** The session's launch: its signal, its temporary folders and its spawn. */
  readonly launch: Pick<HarnessLaunch, "signal" | "tempDir" | "spawn">;
  /** The temporary folder's name prefix, e.g. `m3-my-agent-`. */
  readonly prefix: string;
  /** Plans the process in the fresh folder `root` (its homes, a copied login, its command line). */
  plan(root: string): Promise<P>;
  /** Wraps the spawned process in the adapter's client. */
  client(process: ManagedProcess): C;
  /** Makes the running agent a session (handshake, MCP servers), given the plan. */
  start(client: C, planned: P): Promise<T>;
  /** The failure in the agent's own words, where it has some (else the kit's; see {@link startOrUndo}). */
  failure?(error: unknown, context: StartFailureContext): HarnessStartError | undefined;
  /** How long the process gets to exit when the start failed (default {@link FAILED_START_GRACE_MS}). */
  readonly closeGraceMs?: number;
  /**
   * Stops the agent when the start failed, as it needs to be stopped (e.g. SIGTERM, for one
   * that ignores its stdin closing); default: its stdin closed, `closeGraceMs`, its group.
   */
  close?(client: C): Promise<void>;
}

/** A session's start on an agent process of its own; see the module's description. */
export async function openCold<P extends ColdPlan, C extends { readonly agent: AgentProcess }, T>(
  opening: ColdOpening<P, C, T>,
): Promise<T> {
  const { harness, names, launch } = opening;
  const planned = await opening.plan(await launch.tempDir(opening.prefix));
  if (launch.signal.aborted) throw new HarnessStartError(harness, tornDown(names));
  const client = opening.client(launch.spawn(planned.process));
  const start = async (): Promise<T> => {
    await client.agent.process.spawned;
    return opening.start(client, planned);
  };
  return startOrUndo(harness, start, {
    names,
    signal: launch.signal,
    stderrTail: () => client.agent.stderrTail(),
    undo: () =>
      opening.close?.(client) ?? client.agent.close(opening.closeGraceMs ?? FAILED_START_GRACE_MS),
    ...(opening.failure ? { failure: opening.failure } : {}),
  });
}
