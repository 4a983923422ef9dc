/**
 * Deterministic evaluators beside the judge (m3's evaluators): checks of a turn's reply or a
 * session's replies and tool calls that need no model, each giving `{ pass, score,
 * reasoning }` like a verdict, so a test can weigh them the same way.
 */
import type { ExecutionResult, TurnResult } from "../evidence/results.js";
import type { ToolCall } from "../evidence/trace.js";
import { SchemaValidator } from "../direct/schema-validation.js";
import { describeValue } from "../validation/check-input.js";
import { InvalidJudge } from "./errors.js";
import { isJudgeSubject, isSessionResult, type JudgeSubject } from "./evidence.js";

/** What an evaluator found. */
export interface Evaluation {
  /** Which evaluator: `contains`, `regex`, `jsonSchema`, `toolCallF1`. */
  readonly evaluator: string;
  readonly pass: boolean;
  /** 0..1. */
  readonly score: number;
  readonly reasoning: string;
}

/** A tool call an expected trajectory names: a tool, or a tool on a server. */
export type ExpectedCall = string | { readonly tool: string; readonly server?: string };

const schemas = new SchemaValidator();

function subjectOf(value: unknown): JudgeSubject {
  if (!isJudgeSubject(value)) {
    throw new InvalidJudge(
      "subject",
      `must be a TurnResult (from send()) or an ExecutionResult (session.result), got ${describeValue(value)}.`,
    );
  }
  return value;
}

function turnsOf(subject: JudgeSubject): readonly TurnResult[] {
  return isSessionResult(subject) ? subject.turns : [subject];
}

/** The reply of a turn, or every reply of a session joined by blank lines ("" when none). */
function replyOf(subject: JudgeSubject): string {
  return turnsOf(subject)
    .map((turn) => turn.response?.text ?? "")
    .filter((text) => text !== "")
    .join("\n\n");
}

function callsOf(subject: JudgeSubject): readonly ToolCall[] {
  const calls = isSessionResult(subject)
    ? (subject as ExecutionResult).trace.toolCalls
    : subject.toolCalls;
  // Wire evidence: what the servers received (a call only the agent reported is not proof).
  return calls.filter((call) => call.evidence !== "reported");
}

function evaluation(
  evaluator: string,
  pass: boolean,
  score: number,
  reasoning: string,
): Evaluation {
  return { evaluator, pass, score, reasoning };
}

/** The reply (a session: any of its replies) contains `text`. */
function contains(
  subject: unknown,
  text: string,
  options: { readonly ignoreCase?: boolean } = {},
): Evaluation {
  const reply = replyOf(subjectOf(subject));
  const found = options.ignoreCase
    ? reply.toLowerCase().includes(text.toLowerCase())
    : reply.includes(text);
  return evaluation(
    "contains",
    found,
    found ? 1 : 0,
    `The reply ${found ? "contains" : "does not contain"} ${JSON.stringify(text)}.`,
  );
}

/** The reply matches `pattern`. */
function regex(subject: unknown, pattern: RegExp): Evaluation {
  const reply = replyOf(subjectOf(subject));
  pattern.lastIndex = 0;
  const match = pattern.exec(reply);
  return evaluation(
    "regex",
    match !== null,
    match !== null ? 1 : 0,
    match !== null
      ? `The reply matches ${String(pattern)} at ${JSON.stringify(match[0])}.`
      : `The reply does not match ${String(pattern)}.`,
  );
}

/**
 * The reply is JSON (the whole reply, or its first ```json fenced block) valid against
 * `schema`.
 */
function jsonSchema(subject: unknown, schema: Record<string, unknown>): Evaluation {
  const reply = replyOf(subjectOf(subject));
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(reply)?.[1];
  let value: unknown;
  try {
    value = JSON.parse(fenced ?? reply) as unknown;
  } catch {
    return evaluation("jsonSchema", false, 0, "The reply is not JSON.");
  }
  const check = schemas.check(schema, value);
  if (check.valid)
    return evaluation("jsonSchema", true, 1, "The reply is JSON valid against the schema.");
  const issues = check.issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`);
  return evaluation(
    "jsonSchema",
    false,
    0,
    `The reply's JSON does not match the schema: ${issues.join("; ")}.`,
  );
}

/**
 * Precision, recall and F1 of the observed tool calls (wire evidence) against an expected
 * list, counted as multisets of tools (with their server when the expected entry names
 * one); order does not count. Passes when F1 ≥ `threshold` (default 1: the same calls).
 */
function toolCallF1(
  subject: unknown,
  expected: readonly ExpectedCall[],
  options: { readonly threshold?: number } = {},
): Evaluation & { readonly precision: number; readonly recall: number } {
  const threshold = options.threshold ?? 1;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new InvalidJudge("threshold", `must be from 0 to 1, got ${describeValue(threshold)}.`);
  }
  const observed = [...callsOf(subjectOf(subject))];
  const wanted = expected.map((entry) => (typeof entry === "string" ? { tool: entry } : entry));
  const missing: string[] = [];
  let matched = 0;
  for (const entry of wanted) {
    const at = observed.findIndex(
      (call) =>
        call.tool === entry.tool && (entry.server === undefined || call.server === entry.server),
    );
    if (at < 0) missing.push(entry.server ? `${entry.server}:${entry.tool}` : entry.tool);
    else {
      matched += 1;
      observed.splice(at, 1);
    }
  }
  const total = matched + observed.length;
  const precision = total === 0 ? (wanted.length === 0 ? 1 : 0) : matched / total;
  const recall = wanted.length === 0 ? (total === 0 ? 1 : 0) : matched / wanted.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const score = Math.round(f1 * 1000) / 1000;
  const extra = observed.map((call) => `${call.server}:${call.tool}`);
  const reasoning =
    `F1 ${score} (precision ${round(precision)}, recall ${round(recall)})` +
    (missing.length > 0 ? `; missing: ${missing.join(", ")}` : "") +
    (extra.length > 0 ? `; not expected: ${extra.join(", ")}` : "") +
    ".";
  return {
    ...evaluation("toolCallF1", score >= threshold, score, reasoning),
    precision: round(precision),
    recall: round(recall),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * The deterministic evaluators. Each takes a TurnResult or a session's ExecutionResult.
 *
 * @example
 * ```ts
 * const f1 = evaluators.toolCallF1(session.result, ["shipping_quote", "shipping_quote"]);
 * expect(f1.score).toBeGreaterThanOrEqual(0.8);
 * expect(evaluators.contains(second, "15.5").pass).toBe(true);
 * ```
 */
export const evaluators = { contains, regex, jsonSchema, toolCallF1 } as const;
