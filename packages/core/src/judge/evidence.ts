/**
 * What a judge is shown: per turn, the prompt the agent got, the tool calls it made (server,
 * tool, arguments, status, result) and its reply. Taken from a turn, or from every turn of a
 * session. Long values are cut, saying so, so a judge prompt stays a bounded size.
 */
import type { ExecutionResult, TurnResult } from "../evidence/results.js";
import type { ToolCall } from "../evidence/trace.js";
import { canonicalJson } from "../evidence/canonical.js";
import { isUnavailable } from "../evidence/unavailable.js";

/** The longest argument or result text shown to a judge; longer ones are cut, saying so. */
export const MAX_EVIDENCE_VALUE = 4_000;

/** One tool call as the judge sees it. */
export interface JudgedToolCall {
  readonly server: string;
  readonly tool: string;
  readonly status: string;
  /** The arguments as canonical JSON, or why they are unavailable. */
  readonly arguments: string;
  /** The result as canonical JSON, or why it is unavailable. */
  readonly result: string;
}

/** One turn as the judge sees it. */
export interface JudgedTurn {
  /** The turn's number in its session (1 = first). */
  readonly number: number;
  readonly prompt: string;
  /** The agent's reply, or null when the turn has none. */
  readonly reply: string | null;
  readonly toolCalls: readonly JudgedToolCall[];
}

/** Everything a judge is shown besides the criteria. */
export interface JudgeEvidence {
  /** `turn` for one turn, `session` for a whole conversation. */
  readonly scope: "turn" | "session";
  /** The session's id (`executionId`), when known. */
  readonly executionId: string | null;
  readonly turns: readonly JudgedTurn[];
}

/** Anything a judge can judge: a turn (from `send()`) or a session's result. */
export type JudgeSubject = TurnResult | ExecutionResult;

/** True for an ExecutionResult (a session), false for a TurnResult. */
export function isSessionResult(subject: JudgeSubject): subject is ExecutionResult {
  return "turns" in subject && Array.isArray((subject as ExecutionResult).turns);
}

/** True when `value` looks like a TurnResult or an ExecutionResult. */
export function isJudgeSubject(value: unknown): value is JudgeSubject {
  if (typeof value !== "object" || value === null || !("snapshot" in value)) return false;
  return (
    ("turns" in value && Array.isArray(value.turns)) || ("prompt" in value && "response" in value)
  );
}

/** The evidence of a turn or of every turn of a session. */
export function judgeEvidence(subject: JudgeSubject): JudgeEvidence {
  if (isSessionResult(subject)) {
    return {
      scope: "session",
      executionId: subject.snapshot.executionId,
      turns: subject.turns.map(judgedTurn),
    };
  }
  const executionId = /^(.*)\/turn-\d+$/.exec(subject.snapshot.turnId)?.[1] ?? null;
  return { scope: "turn", executionId, turns: [judgedTurn(subject)] };
}

function judgedTurn(turn: TurnResult): JudgedTurn {
  return {
    number: turn.snapshot.number,
    prompt: turn.prompt,
    reply: turn.response?.text ?? null,
    toolCalls: turn.toolCalls.map(judgedCall),
  };
}

function judgedCall(call: ToolCall): JudgedToolCall {
  return {
    server: call.server,
    tool: call.tool,
    status: call.status,
    arguments: shown(call.arguments),
    result: shown(call.result),
  };
}

function shown(value: unknown): string {
  if (isUnavailable(value)) return `(unavailable: ${value.reason})`;
  const text = canonicalJson(value);
  return text.length <= MAX_EVIDENCE_VALUE
    ? text
    : `${text.slice(0, MAX_EVIDENCE_VALUE)}… (cut: ${text.length} characters in all)`;
}
