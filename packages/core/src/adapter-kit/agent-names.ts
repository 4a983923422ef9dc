/**
 * The names an adapter's messages use for its agent, and the wording built from them that
 * every adapter shares (a tool call the agent did not finish reporting).
 *
 * @example
 * ```ts
 * const names: AgentNames = { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" };
 * const { status, reason } = unfinishedCall(names, "failed", "the agent exited");
 * ```
 */
import type { AdapterTurnOutcome } from "../harness/contract.js";

/** The names an adapter's messages use for its agent. */
export interface AgentNames {
  /** The agent, e.g. `My Agent`: "A My Agent turn is still running". */
  readonly agent: string;
  /** Its process, e.g. `my-agent serve`: "my-agent serve exited (code 1)" (default `agent`). */
  readonly process?: string;
  /** Whose stderr a tail section names, e.g. `my-agent` (default `process`). */
  readonly stderr?: string;
}

/**
 * How a tool call still running when its turn ended is reported: `incomplete` when the
 * turn failed, `cancelled` when it was interrupted, with the reason in the agent's name.
 *
 * @param what - What the agent did not report, e.g. `the result` (default) or `the end`.
 */
export function unfinishedCall(
  names: AgentNames,
  outcome: AdapterTurnOutcome,
  error: string | null,
  what = "the result",
): { readonly status: "incomplete" | "cancelled"; readonly reason: string } {
  const missing = `${names.agent} reported ${what} of this call`;
  return outcome === "failed"
    ? {
        status: "incomplete",
        reason: `the turn failed before ${missing}: ${error ?? "no reason given"}`,
      }
    : { status: "cancelled", reason: `the turn was interrupted before ${missing}` };
}
