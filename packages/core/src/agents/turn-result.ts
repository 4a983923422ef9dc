import { resultError, type ResultError } from "../errors.js";
import { correlateTurn } from "../evidence/correlation.js";
import type { ToolCall, Trace } from "../evidence/trace.js";
import { isToolAllowed } from "../harness/contract.js";
import type { ToolPolicy } from "../servers/tool-policy.js";
import { ExecutionOutcome } from "../evidence/outcomes.js";
import type { TurnResult } from "../evidence/results.js";
import type { TurnEnding } from "./turn-runner.js";

/** What a finished turn's result is built from. */
export interface TurnRecord {
  readonly turnId: string;
  readonly sessionId: string;
  readonly number: number;
  readonly prompt: string;
  readonly createdAt: number;
  readonly finishedAt: number;
  readonly ending: TurnEnding;
  /** The wire trace as the turn's end flushed it. */
  readonly observed: Trace;
  readonly policy: ToolPolicy;
  /** Ids for reported calls that the wire did not see. */
  readonly nextReportedId: () => string;
}

/**
 * A turn's result: the wire calls of the turn correlated with what the harness reported,
 * and a completed turn marked failed when the harness reports a call the allow-list forbids
 * (the wire refused it, or the harness lies: either way the test must hear of it).
 */
export function buildTurnResult(record: TurnRecord): TurnResult {
  const { ending, observed, turnId } = record;
  const wire = observed.toolCalls.filter((call) => call.turnId === turnId);
  const toolCalls = correlateTurn(
    wire,
    ending.turn?.toolCalls ?? [],
    turnId,
    record.nextReportedId,
  );
  let outcome = ending.outcome;
  let error = ending.error;
  const violations = toolCalls.filter(
    (call) =>
      call.reported !== undefined &&
      !isToolAllowed(record.policy, call.server, call.tool) &&
      (call.reported.status === "success" || call.reported.status === "tool_error"),
  );
  if (violations.length > 0 && outcome === "completed") {
    const tools = violations.map((call) => `${call.server}:${call.tool}`);
    outcome = "failed";
    error = resultError(
      "M3_TOOL_POLICY_VIOLATION",
      `Tool policy violation: the harness reports calling ${tools.join(", ")}, which the session's allow-list does not allow.`,
      { details: { tools } },
    );
  }
  return {
    snapshot: {
      turnId,
      sessionId: record.sessionId,
      number: record.number,
      lifecycle: "finished",
      outcome,
      createdAt: record.createdAt,
      finishedAt: record.finishedAt,
    },
    prompt: record.prompt,
    response: ending.turn?.response ?? null,
    error,
    toolCalls,
    events: ending.turn?.events ?? [],
    gaps: observed.gaps,
  };
}

/**
 * The session's trace: the wire trace with each turn's calls replaced by the turn's
 * correlated calls; calls outside every turn (startup, close) kept as the wire saw them.
 */
export function sessionTrace(wire: Trace | undefined, turns: readonly TurnResult[]): Trace {
  const base = wire ?? { messages: [], toolCalls: [], events: [], gaps: [] };
  const inTurns = new Set(turns.map((turn) => turn.snapshot.turnId));
  const outside = base.toolCalls.filter(
    (call) => call.turnId === null || !inTurns.has(call.turnId),
  );
  const calls: ToolCall[] = [...outside, ...turns.flatMap((turn) => turn.toolCalls)];
  return { ...base, toolCalls: calls };
}

/** A closed session's outcome from its turns: any failure fails it, else the worst ending. */
export function outcomeOfTurns(turns: readonly TurnResult[]): {
  outcome: ExecutionOutcome;
  error: ResultError | null;
} {
  const failed = turns.filter((turn) => turn.snapshot.outcome === "failed");
  if (failed.length > 0) {
    return {
      outcome: ExecutionOutcome.FAILED,
      error: resultError(
        "M3_TURN_FAILED",
        failed
          .map(
            (turn) =>
              `turn ${turn.snapshot.number} failed: ${turn.error?.message ?? "no error given"}`,
          )
          .join("\n"),
        { details: { turns: failed.map((turn) => turn.snapshot.number) } },
      ),
    };
  }
  const outcomes = turns.map((turn) => turn.snapshot.outcome);
  if (outcomes.includes("timed_out")) return { outcome: ExecutionOutcome.TIMED_OUT, error: null };
  if (outcomes.includes("cancelled")) return { outcome: ExecutionOutcome.CANCELLED, error: null };
  if (outcomes.includes("interrupted"))
    return { outcome: ExecutionOutcome.INTERRUPTED, error: null };
  return { outcome: ExecutionOutcome.COMPLETED, error: null };
}
