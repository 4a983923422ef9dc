/**
 * The names an adapter's messages use for its agent, and what every adapter words the same
 * with them: a tool call the agent did not finish reporting, and a reported call's status.
 *
 * @example
 * ```ts
 * const names: AgentNames = { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" };
 * const { status, reason } = unfinishedCall(names, "failed", "the agent exited");
 * ```
 */
import type { ReportedToolCall, ToolCallStatus } from "../evidence/trace.js";
import { unavailable } from "../evidence/unavailable.js";
import type { AdapterTurnOutcome } from "../harness/contract.js";
import { isJsonObject } from "./json-lines.js";

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

/** What an agent said of a finished call: whether it failed, and the result's text. */
export interface CallResult {
  readonly isError: boolean;
  /** The result's text (its error message, when it failed). */
  readonly text: string;
}

/**
 * A reported call's status and error, by the rule every adapter shares: no result yet is
 * `unfinished` (see {@link unfinishedCall}); a result that is not an error is a success;
 * an error's status is what `failed` reads in its text (a policy denial, a timeout, ...),
 * its error the text, or a sentence naming the agent when it gave none.
 */
export function callOutcome(
  names: AgentNames,
  result: CallResult | undefined,
  unfinished: { readonly status: ToolCallStatus; readonly reason: string },
  failed: (text: string) => ToolCallStatus,
): { readonly status: ToolCallStatus; readonly error?: string } {
  if (result === undefined) return { status: unfinished.status, error: unfinished.reason };
  if (!result.isError) return { status: "success" };
  const error = result.text || `${names.agent} reported an error without a message`;
  return { status: failed(result.text), error };
}

/** What an adapter read of one MCP call, for {@link reportedCall}. */
export interface CallReading {
  readonly id: string;
  readonly server: string;
  readonly tool: string;
  /** The arguments as the agent reported them (anything but an object is unavailable). */
  readonly arguments: unknown;
  /** The call's MCP result as the agent reported it, or undefined when it reported none. */
  readonly result: Readonly<Record<string, unknown>> | undefined;
  readonly status: ToolCallStatus;
  readonly error?: string | undefined;
  /** When the call started and ended (monotonic epoch ms), where known. */
  readonly startedAt?: number | undefined;
  readonly endedAt?: number | undefined;
}

/**
 * The {@link ReportedToolCall} of what an adapter read, in the one wording: arguments that
 * are not an object, and a result the agent did not report, are unavailable with the
 * reason in the agent's name; fields it did not say are left out.
 *
 * @example
 * ```ts
 * reportedCall({ agent: "My Agent" }, { id, server, tool, arguments: input, result: undefined, status: "incomplete", error });
 * ```
 */
export function reportedCall(names: AgentNames, call: CallReading): ReportedToolCall {
  const { agent } = names;
  const { arguments: args, error, startedAt, endedAt } = call;
  const shown = JSON.stringify(args ?? null).slice(0, 80);
  return {
    id: call.id,
    server: call.server,
    tool: call.tool,
    arguments: isJsonObject(args)
      ? args
      : unavailable(
          args === undefined
            ? `${agent} reported no arguments for this call`
            : `${agent} reported the arguments as ${shown}, not an object`,
        ),
    result:
      call.result ??
      unavailable(`${agent} reported no result${error !== undefined ? `: ${error}` : ""}`),
    status: call.status,
    ...(error !== undefined ? { error } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
  };
}
