// Warm Pi (the default; `warm: false`, `builtinTools` or a workspace is cold): one `pi
// --mode rpc` process per Jest worker and key, serving one session after another (the
// adapter kit's WarmAgents: one process is one conversation at a time, and a process is
// shared only by sessions whose start is equal: executable, arguments, environment with
// the provider and credential values, and every file of its home: models.json,
// settings.json). It is started without MCP servers, in a folder of its own: each session
// binds its own servers through the bridge's command, and leaves by `new_session` (a new
// conversation; Pi reloads the bridge, which first closes the session's servers). A
// process that does not confirm that is stopped, never handed on.
import { WarmAgents, type WarmAgentLease, type WarmStartSpec } from "@jest-m3/core/adapter-kit";
import type { PiState } from "./protocol.js";
import { PiRpcClient } from "./rpc-client.js";

/** Everything one warm Pi is started with, and how long it gets to answer `get_state`. */
export interface WarmPiStart extends WarmStartSpec {
  readonly startupTimeoutMs: number;
}

/** A session's hold on a warm Pi; its `root` is the process's folder. */
export type WarmPiLease = WarmAgentLease<PiRpcClient>;

/** Pi's state, checked to be a session (a warm Pi answers `get_state` before it is leased). */
async function sessionState(client: PiRpcClient, timeoutMs: number): Promise<PiState> {
  const state = (await client.command("get_state", {}, { timeoutMs })) as unknown as
    PiState | undefined;
  if (typeof state?.sessionId !== "string") {
    throw new Error(`Pi answered get_state without a session id: ${JSON.stringify(state)}`);
  }
  return state;
}

/** This worker's warm Pi processes. */
export const warmPis = new WarmAgents<PiRpcClient, WarmPiStart>({
  label: "pi (warm)",
  client: (child) => new PiRpcClient(child),
  ready: async (client, start) => void (await sessionState(client, start.startupTimeoutMs)),
});

/**
 * Leaves a warm Pi's conversation so that the next session finds nothing of this one:
 * `new_session` (Pi starts a new conversation and reloads its extensions; the bridge's
 * `session_shutdown` closes this session's MCP clients first, and the reloaded bridge has
 * no server and no tool), checked with `get_state` (a new session id, no message). Throws
 * when any of it is not confirmed: the caller stops the process.
 */
export async function leaveSession(
  client: PiRpcClient,
  sessionId: string,
  timeoutMs: number,
): Promise<void> {
  const answer = (await client.command("new_session", {}, { timeoutMs })) as
    { cancelled?: unknown } | undefined;
  if (answer?.cancelled !== false) {
    throw new Error(`new_session answered ${JSON.stringify(answer)}`);
  }
  const state = await sessionState(client, timeoutMs);
  if (state.sessionId === sessionId || state.messageCount !== 0) {
    throw new Error(`Pi kept the conversation: get_state answered ${JSON.stringify(state)}`);
  }
}

/**
 * Stops every warm Pi of this worker now (for tests and teardown), leased or idle, each
 * with its process group; their folders are removed. Warm Pi processes also stop after
 * 20 s unused, and always when the worker exits.
 *
 * @example
 * ```ts
 * import { stopWarmPi } from "@jest-m3/harness-pi";
 * afterAll(() => stopWarmPi());
 * ```
 */
export function stopWarmPi(): Promise<void> {
  return warmPis.stopAll();
}

/** The process ids of this worker's warm Pi processes (for diagnosis and tests). */
export function warmPiPids(): number[] {
  return warmPis.pids();
}
