import type { ExecutionResult, TurnResult } from "../agents/results.js";
import { QueryError } from "../errors.js";
import type { ToolCall, ToolCallStatus, Trace } from "./trace.js";
import { isUnavailable } from "./unavailable.js";
import { canonicalJson } from "./canonical.js";

/** Compares an observed value with an expected one. Jest passes its own `equals`. */
export type Equality = (actual: unknown, expected: unknown) => boolean;

/** A turn, named by its result, its id, or its 1-based number. */
export type TurnRef = TurnResult | string | number;

/** Which evidence a query counts. */
export type EvidenceFilter = "wire" | "reported" | "any";

/** Which tool calls to look for, and how many. */
export interface ToolCallQuery {
  readonly tool?: string;
  readonly server?: string;
  readonly turn?: TurnRef;
  readonly arguments?: unknown;
  /** `exact` (default): the arguments equal; `partial`: the expected keys match. */
  readonly argumentsMatch?: "exact" | "partial";
  /** Compared key by key with the result (`{ structuredContent: ... }` checks just that). */
  readonly result?: unknown;
  readonly status?: ToolCallStatus | readonly ToolCallStatus[];
  /** Default `wire`: only calls observed on the wire count. */
  readonly evidence?: EvidenceFilter;
  readonly count?: number;
  readonly minCount?: number;
  readonly maxCount?: number;
}

/** What a query can run against. */
export type QuerySubjectInput =
  | ExecutionResult
  | TurnResult
  | Trace
  | readonly ToolCall[]
  | { readonly finalTrace: Trace }
  | { readonly trace: Trace };

/** A subject normalized for querying. */
export interface QuerySubject {
  readonly calls: readonly ToolCall[];
  /** Whether the subject can gain no more calls (a closed session, a finished turn). */
  readonly finished: boolean;
  /** Turn ids by number, when the subject knows its turns. */
  readonly turns: ReadonlyMap<number, string>;
  readonly description: string;
  /** Where observation failed (see {@link Trace.gaps}); a negative cannot be proven across one. */
  readonly gaps: readonly string[];
}

/** The answer to a query. */
export interface QueryOutcome {
  readonly pass: boolean;
  readonly matches: readonly ToolCall[];
  /** Every call the query looked at (after the evidence filter), for failure messages. */
  readonly observed: readonly ToolCall[];
  /** "exactly 1", "at least 1", "between 1 and 3". */
  readonly expectedCount: string;
}

function isTurnResult(value: unknown): value is TurnResult {
  return (
    typeof value === "object" &&
    value !== null &&
    "snapshot" in value &&
    typeof (value as TurnResult).snapshot?.turnId === "string"
  );
}

function isExecutionResult(value: unknown): value is ExecutionResult {
  return (
    typeof value === "object" &&
    value !== null &&
    "snapshot" in value &&
    typeof (value as ExecutionResult).snapshot?.executionId === "string"
  );
}

function isTrace(value: unknown): value is Trace {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as Trace).toolCalls) &&
    Array.isArray((value as Trace).messages)
  );
}

function gapsOf(trace: Trace): string[] {
  return (trace.gaps ?? []).map((gap) => `${gap.server}: ${gap.reason}`);
}

/**
 * Normalizes what a matcher received. Accepts an ExecutionResult, a TurnResult, a Trace,
 * an array of ToolCalls, or anything with a `finalTrace` (a closed DirectClient) or `trace`.
 *
 * @throws {@link QueryError} for anything else, saying what is accepted.
 */
export function toQuerySubject(value: unknown): QuerySubject {
  if (isExecutionResult(value)) {
    return {
      calls: value.trace.toolCalls,
      finished: value.snapshot.lifecycle === "finished",
      turns: new Map(value.turns.map((turn) => [turn.snapshot.number, turn.snapshot.turnId])),
      description: `execution ${value.snapshot.executionId}`,
      gaps: gapsOf(value.trace),
    };
  }
  if (isTurnResult(value)) {
    return {
      calls: value.toolCalls,
      finished: value.snapshot.lifecycle === "finished",
      turns: new Map([[value.snapshot.number, value.snapshot.turnId]]),
      description: `turn ${value.snapshot.number}`,
      gaps: (value.gaps ?? []).map((gap) => `${gap.server}: ${gap.reason}`),
    };
  }
  if (isTrace(value))
    return {
      calls: value.toolCalls,
      finished: true,
      turns: new Map(),
      description: "trace",
      gaps: gapsOf(value),
    };
  if (Array.isArray(value))
    return {
      calls: value as ToolCall[],
      finished: true,
      turns: new Map(),
      description: "tool calls",
      gaps: [],
    };
  if (typeof value === "object" && value !== null) {
    try {
      const final = (value as { finalTrace?: unknown }).finalTrace;
      if (isTrace(final))
        return {
          calls: final.toolCalls,
          finished: true,
          turns: new Map(),
          description: "final trace",
          gaps: gapsOf(final),
        };
    } catch {
      // finalTrace throws while open: fall through to the live trace.
    }
    const live = (value as { trace?: unknown }).trace;
    if (isTrace(live))
      return {
        calls: live.toolCalls,
        finished: false,
        turns: new Map(),
        description: "live trace",
        gaps: gapsOf(live),
      };
  }
  throw new QueryError(
    "Expected an ExecutionResult (session.result), a TurnResult (from send()), a Trace, an array of ToolCalls, " +
      "or a client with a trace.",
  );
}

/** Default equality: canonical-JSON equal. */
export const jsonEquals: Equality = (actual, expected) =>
  canonicalJson(actual) === canonicalJson(expected);

function partialEquals(actual: unknown, expected: unknown, equals: Equality): boolean {
  if (typeof expected !== "object" || expected === null || Array.isArray(expected))
    return equals(actual, expected);
  if (typeof actual !== "object" || actual === null) return false;
  return Object.entries(expected).every(([key, value]) =>
    equals((actual as Record<string, unknown>)[key], value),
  );
}

/** The call as the chosen evidence sees it (the harness's report, for `reported`). */
function viewOf(call: ToolCall, evidence: EvidenceFilter): ToolCall | undefined {
  if (evidence === "wire")
    return call.evidence === "wire" || call.evidence === "both" ? call : undefined;
  if (evidence === "reported") {
    const reported = call.reported;
    if (!reported) return undefined;
    return {
      ...call,
      arguments: reported.arguments,
      result: reported.result,
      status: reported.status,
    };
  }
  return call;
}

function turnIdOf(turn: TurnRef, subject: QuerySubject): string {
  if (typeof turn === "string") return turn;
  if (typeof turn === "number") {
    const id = subject.turns.get(turn);
    if (!id) throw new QueryError(`Turn ${turn} is not a turn of this ${subject.description}.`);
    return id;
  }
  if (isTurnResult(turn)) return turn.snapshot.turnId;
  throw new QueryError("turn must be a TurnResult (from send()), a turn id, or a turn number.");
}

function describeCount(query: ToolCallQuery): string {
  if (query.count !== undefined) return `exactly ${query.count}`;
  if (query.minCount !== undefined && query.maxCount !== undefined)
    return `between ${query.minCount} and ${query.maxCount}`;
  if (query.maxCount !== undefined) return `at most ${query.maxCount}`;
  return `at least ${query.minCount ?? 1}`;
}

/**
 * Finds the tool calls of `subject` that match `query` and checks their number. The one
 * engine behind every tool-call matcher.
 *
 * @throws {@link QueryError} for a malformed query, a tool on several servers without a
 * `server`, or a negative expectation on a subject that can still change.
 */
export function queryToolCalls(
  subject: QuerySubject,
  query: ToolCallQuery,
  options: { equals?: Equality; negated?: boolean } = {},
): QueryOutcome {
  const equals = options.equals ?? jsonEquals;
  if (query.count !== undefined && (query.minCount !== undefined || query.maxCount !== undefined)) {
    throw new QueryError("count cannot be combined with minCount or maxCount.");
  }
  for (const field of ["count", "minCount", "maxCount"] as const) {
    const value = query[field];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new QueryError(
        `${field} must be a non-negative integer, got ${JSON.stringify(value)}.`,
      );
    }
  }
  const evidence = query.evidence ?? "wire";
  if (!["wire", "reported", "any"].includes(evidence)) {
    throw new QueryError(
      `evidence must be "wire", "reported" or "any", got ${JSON.stringify(evidence)}.`,
    );
  }
  const negative = options.negated === true || query.count === 0 || query.maxCount === 0;
  if (negative && !subject.finished) {
    throw new QueryError(
      "An assertion that a call did not happen (.not, count: 0, maxCount: 0) needs a finished subject: " +
        "use session.result after close, a TurnResult, or a closed client's finalTrace.",
    );
  }
  // "Exactly N" is also a claim that no further call happened.
  if ((negative || query.count !== undefined) && subject.gaps.length > 0) {
    throw new QueryError(
      `Cannot prove that a call did not happen (nor an exact count): the evidence has gaps (${subject.gaps.join("; ")}). ` +
        "A call may have crossed unseen; fix what broke the capture.",
    );
  }
  if (query.tool !== undefined && query.server === undefined) {
    const servers = [
      ...new Set(
        subject.calls.filter((call) => call.tool === query.tool).map((call) => call.server),
      ),
    ];
    if (servers.length > 1) {
      throw new QueryError(
        `Tool "${query.tool}" was called on several servers (${servers.join(", ")}); say which with { server }.`,
      );
    }
  }
  const turnId = query.turn === undefined ? undefined : turnIdOf(query.turn, subject);
  const statuses =
    query.status === undefined
      ? undefined
      : Array.isArray(query.status)
        ? query.status
        : [query.status];
  const observed = subject.calls
    .map((call) => viewOf(call, evidence))
    .filter((call): call is ToolCall => call !== undefined);
  const matches = observed.filter((call) => {
    if (query.tool !== undefined && call.tool !== query.tool) return false;
    if (query.server !== undefined && call.server !== query.server) return false;
    if (turnId !== undefined && call.turnId !== turnId) return false;
    if (statuses && !statuses.includes(call.status)) return false;
    if (query.arguments !== undefined) {
      if (isUnavailable(call.arguments)) return false;
      const same =
        query.argumentsMatch === "partial"
          ? partialEquals(call.arguments, query.arguments, equals)
          : equals(call.arguments, query.arguments);
      if (!same) return false;
    }
    if (query.result !== undefined) {
      if (isUnavailable(call.result)) return false;
      if (!partialEquals(call.result, query.result, equals)) return false;
    }
    return true;
  });
  const n = matches.length;
  const pass =
    query.count !== undefined
      ? n === query.count
      : n >= (query.minCount ?? (query.maxCount !== undefined ? 0 : 1)) &&
        (query.maxCount === undefined || n <= query.maxCount);
  return { pass, matches, observed, expectedCount: describeCount(query) };
}
