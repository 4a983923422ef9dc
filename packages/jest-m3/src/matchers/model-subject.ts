import {
  isUnavailable,
  type ExecutionResult,
  type ModelRequest,
  type TokenUsage,
  type TurnResult,
  type Unavailable,
} from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import type { M3MatcherContext } from "./context.js";

/** The model side of a session or a turn: its model requests and their usage. */
export interface ModelSubject {
  /** `turn 2`, `the session`. */
  readonly what: string;
  readonly requests: readonly ModelRequest[] | Unavailable;
  readonly usage: TokenUsage | Unavailable;
}

const NO_TAP =
  "the result carries no model requests (it was made without a provider tap: give the selection a provider)";

function isTurn(value: unknown): value is TurnResult {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { snapshot?: { turnId?: unknown } }).snapshot?.turnId === "string"
  );
}

function isSession(value: unknown): value is ExecutionResult {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { turns?: unknown }).turns) &&
    typeof (value as { snapshot?: { executionId?: unknown } }).snapshot?.executionId === "string"
  );
}

function ofTurn(turn: TurnResult): ModelSubject {
  return {
    what: `turn ${turn.snapshot.number}`,
    requests: turn.modelRequests ?? { unavailable: true, reason: NO_TAP },
    usage: turn.usage ?? { unavailable: true, reason: NO_TAP },
  };
}

/**
 * The model side `received` (a session's result or a turn) stands for, narrowed to `turn`
 * (a turn number or a `TurnResult` of that session) when given.
 */
export function modelSubject(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
  turn: number | TurnResult | undefined,
): ModelSubject {
  if (isTurn(received)) {
    if (turn !== undefined)
      throwUsage(context, matcher, "the turn option needs a session's result, not a turn");
    return ofTurn(received);
  }
  if (!isSession(received)) {
    return throwUsage(
      context,
      matcher,
      `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult (session.result) or a TurnResult`,
      { value: received },
    );
  }
  if (turn !== undefined) {
    const wanted =
      typeof turn === "number" ? turn : isTurn(turn) ? turn.snapshot.turnId : undefined;
    if (wanted === undefined)
      throwUsage(context, matcher, "turn must be a turn number or a TurnResult");
    const found = received.turns.find((t) =>
      typeof wanted === "number" ? t.snapshot.number === wanted : t.snapshot.turnId === wanted,
    );
    if (!found) {
      throwUsage(
        context,
        matcher,
        `the session has no turn ${typeof turn === "number" ? turn : turn.snapshot.number} (it has ${received.turns.length})`,
      );
    }
    return ofTurn(found);
  }
  return {
    what: "the session",
    requests: received.modelRequests ?? { unavailable: true, reason: NO_TAP },
    usage: received.usage ?? { unavailable: true, reason: NO_TAP },
  };
}

/** One line per model request, for failure messages. */
export function describeRequests(requests: readonly ModelRequest[]): string {
  if (requests.length === 0) return "  (no model request)";
  return requests
    .map((r) => {
      const usage = isUnavailable(r.usage)
        ? `usage unavailable: ${r.usage.reason}`
        : `${r.usage.inputTokens} in / ${r.usage.outputTokens} out`;
      const calls =
        r.toolCalls.length > 0 ? `, asked for ${r.toolCalls.map((c) => c.name).join(", ")}` : "";
      return `  ${r.id} ${r.method} ${r.path} → ${r.status ?? "no answer"} (${usage}${calls})`;
    })
    .join("\n");
}
