import { HarnessStartError } from "../harness/contract.js";
import type { Trace } from "../evidence/trace.js";

/**
 * How long a session that opened waits at most for the servers its agent started in the
 * background to answer (or exit) before the first turn.
 */
export const SERVER_SETTLE_MS = 10_000;

/**
 * How long a session whose agent failed to start waits at most for its servers to settle
 * before building the error: an agent can report a server's crash before the kit has read
 * the relay's last frames (the server's stderr and its exit), which the error carries.
 */
export const FAILED_START_SETTLE_MS = 1000;

/** A stdio server of the session whose every process exited while the agent started. */
export interface ServerDeadAtStart {
  readonly server: string;
  /** How its last process ended, as the relay recorded it. */
  readonly exit: string;
}

/**
 * The stdio servers every one of whose connections ended with the server's own exit (or a
 * failed spawn) before the session opened. A connection the agent closed itself (a probe of
 * the server, say) does not count, and neither does a server the agent never started.
 */
export function serversDeadAtStart(trace: Trace): ServerDeadAtStart[] {
  const connections = new Map<string, Map<string, string | null>>();
  for (const event of trace.events) {
    if (event.kind === "connected") {
      const mine = connections.get(event.server) ?? new Map<string, string | null>();
      mine.set(event.connection, null);
      connections.set(event.server, mine);
    } else if (event.kind === "process_exit" && !event.detail.startsWith("the harness closed")) {
      connections.get(event.server)?.set(event.connection, event.detail.split(";")[0] ?? "");
    } else if (event.kind === "process_exit") {
      connections.get(event.server)?.delete(event.connection);
    }
  }
  const dead: ServerDeadAtStart[] = [];
  for (const [server, mine] of connections) {
    const exits = [...mine.values()];
    if (exits.length > 0 && exits.every((exit) => exit !== null)) {
      dead.push({ server, exit: exits[exits.length - 1]! });
    }
  }
  return dead;
}

/**
 * The connections the agent started that have neither heard from their server (its answer
 * to `initialize`, say) nor seen it exit: a server still starting.
 */
export function connectionsStarting(trace: Trace): string[] {
  const starting = new Set<string>();
  for (const event of trace.events) {
    if (event.kind === "connected") starting.add(event.connection);
  }
  for (const event of trace.events) {
    if (event.kind === "process_exit" || event.kind === "closed") starting.delete(event.connection);
  }
  for (const message of trace.messages) {
    if (message.direction === "from_server") starting.delete(message.connection);
  }
  return [...starting];
}

/**
 * Waits, at most `timeoutMs`, until every server connection the agent started has heard
 * from its server or seen it exit (an agent that starts its servers in the background
 * returns from its own start before they answer). A server the agent has not started is
 * not waited for.
 */
export async function serversSettled(
  trace: () => Trace,
  flush: () => Promise<void>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await flush();
  while (connectionsStarting(trace()).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    await flush();
  }
}

/**
 * Fails a session whose MCP server died while the agent started, whatever the agent made
 * of it (some go on without the server and would answer the first turn without its tools):
 * servers ready before the first turn are part of the contract. The session adds each
 * server's stderr, as the relay recorded it.
 *
 * @throws {@link HarnessStartError} naming every such server and how it ended.
 */
export function assertServersStarted(harness: string, trace: Trace): void {
  const dead = serversDeadAtStart(trace);
  if (dead.length === 0) return;
  const listed = dead.map((entry) => `MCP server "${entry.server}" failed to start: ${entry.exit}`);
  throw new HarnessStartError(
    harness,
    `${listed.join("; ")}. Every server must be ready before the first turn; the agent went on without it, so the session stops here. Fix the server's command or environment (its stderr is below).`,
  );
}
