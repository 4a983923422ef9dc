import type { ExecutionResult, TurnResult, TurnSnapshot } from "./results.js";
import { QueryError } from "../errors.js";
import type { ToolCall, ToolCallStatus, Trace } from "./trace.js";
import { isUnavailable, type Unavailable } from "./unavailable.js";
import { canonicalJson } from "./canonical.js";
import { suggestName } from "../text/suggest.js";

/** Compares an observed value with an expected one. Jest passes its own `equals`. */
export type Equality = (actual: unknown, expected: unknown) => boolean;

/** A turn, named by its result, its snapshot, its id, or its 1-based number. */
export type TurnRef = TurnResult | TurnSnapshot | string | number;

/**
 * Which evidence a query counts.
 *
 * - `wire` (default): calls observed on the wire, whether or not the harness reported them.
 *   A wire call whose pairing with a report is `ambiguous` still counts: the wire side is
 *   proof on its own; only the pairing is uncertain.
 * - `reported`: what the harness reported, read from its report (arguments, result, status),
 *   including reports the kit never saw on the wire and ambiguous ones.
 * - `any`: every wire call, plus reported-only calls. Reports marked `ambiguous` are left
 *   out: each has wire candidates that already count, and counting both would count one
 *   call twice.
 */
export type EvidenceFilter = "wire" | "reported" | "any";

/** How expected arguments compare: every key (`exact`), the given keys (`partial`), or not at all. */
export type ArgumentsMatch = "exact" | "partial" | "ignored";

/** Which tool calls to look for, and how many. */
export interface ToolCallQuery {
  readonly tool?: string;
  readonly server?: string;
  readonly turn?: TurnRef;
  readonly arguments?: unknown;
  /** `exact` (default): the arguments equal; `partial`: the expected keys match; `ignored`. */
  readonly argumentsMatch?: ArgumentsMatch;
  /** Arrays inside the arguments compare as multisets (any order). */
  readonly argumentsUnordered?: boolean;
  /**
   * Compared with the call's result as m3 projects it: `{ content, structuredContent?,
   * isError? (only when true) }`, or `{ error: { code, message } }` for a JSON-RPC error.
   * Expected keys may use m3's spellings `structured_content` and `is_error`.
   */
  readonly result?: unknown;
  /**
   * `exact`: the projection has exactly the expected keys; `partial`: the expected keys
   * match. The engine's default is `partial`, as before #19; the jest-m3 matchers pass
   * `exact` unless told otherwise, as m3 does.
   */
  readonly resultMatch?: "exact" | "partial";
  readonly status?: ToolCallStatus | readonly ToolCallStatus[];
  /** Default `wire`: only calls observed on the wire count (see {@link EvidenceFilter}). */
  readonly evidence?: EvidenceFilter;
  /** The call took at least this long (ms). A call without a latency never matches. */
  readonly minLatencyMs?: number;
  /** The call took at most this long (ms). A call without a latency never matches. */
  readonly maxLatencyMs?: number;
  /** Any further test of the call; it sees the call as the chosen evidence does. */
  readonly predicate?: (call: ToolCall) => boolean;
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
  /** The whole trace (messages, events), when the subject has one; a TurnResult has not. */
  readonly trace?: Trace;
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
      trace: value.trace,
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
      trace: value,
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
          trace: final,
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
        trace: live,
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function partialEquals(actual: unknown, expected: unknown, equals: Equality): boolean {
  if (!isRecord(expected)) return equals(actual, expected);
  if (!isRecord(actual)) return false;
  return Object.entries(expected).every(([key, value]) => equals(actual[key], value));
}

/** Equality where arrays (at any depth) compare as multisets. */
function unorderedEquals(equals: Equality): Equality {
  const compare: Equality = (actual, expected) => {
    if (Array.isArray(expected)) {
      if (!Array.isArray(actual) || actual.length !== expected.length) return false;
      return (
        perfectMatching(expected, actual, (step, call) => compare(call, step)).size ===
        expected.length
      );
    }
    if (isRecord(expected) && typeof expected.asymmetricMatch !== "function") {
      if (!isRecord(actual)) return false;
      const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
      return [...keys].every((key) => compare(actual[key], expected[key]));
    }
    return equals(actual, expected);
  };
  return compare;
}

/**
 * A maximum matching of `left` to `right` (augmenting paths): which right item each left item
 * took. Greedy matching can fail with overlapping expectations (a partial step that fits two
 * calls); this does not.
 */
function perfectMatching<L, R>(
  left: readonly L[],
  right: readonly R[],
  fits: (l: L, r: R) => boolean,
): Map<number, number> {
  const fit = left.map((l) => right.map((r) => fits(l, r)));
  const owner = new Map<number, number>(); // right index -> left index
  const tryAssign = (i: number, seen: Set<number>): boolean => {
    for (let j = 0; j < right.length; j++) {
      if (!fit[i]![j] || seen.has(j)) continue;
      seen.add(j);
      const current = owner.get(j);
      if (current === undefined || tryAssign(current, seen)) {
        owner.set(j, i);
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < left.length; i++) tryAssign(i, new Set());
  return new Map([...owner].map(([j, i]) => [i, j]));
}

/**
 * A call's result as m3 compares it: `{ content, structuredContent?, isError? }` (isError
 * only when true), or `{ error: { code, message } }` when the server answered with a
 * JSON-RPC error, or unavailable.
 *
 * @example
 * ```ts
 * resultProjection(call); // { content: [{ type: "text", text: "Quote calculated" }], structuredContent: { amount: 9, currency: "USD" } }
 * ```
 */
export function resultProjection(call: ToolCall): Record<string, unknown> | Unavailable {
  if (isUnavailable(call.result)) {
    return call.error
      ? { error: { code: call.error.code, message: call.error.message } }
      : call.result;
  }
  const result = call.result;
  return {
    content: result.content ?? [],
    ...(result.structuredContent !== undefined
      ? { structuredContent: result.structuredContent }
      : {}),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

/** Expected result keys in jest-m3's spelling (m3's `structured_content`, `is_error` accepted). */
function normalizeExpectedResult(expected: unknown): unknown {
  if (!isRecord(expected) || typeof expected.asymmetricMatch === "function") return expected;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(expected)) {
    const name =
      key === "structured_content" ? "structuredContent" : key === "is_error" ? "isError" : key;
    // isError is only projected when true: "false" and "undefined" both mean "not an error".
    if (name === "isError" && (value === false || value === undefined)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The text of a tool's error, when the call failed: the text content of a tool error, the
 * JSON-RPC error's message otherwise; null for a call that did not fail.
 *
 * @example
 * ```ts
 * toolErrorText(call); // "zone must be one of local, regional, international, got \"mars\""
 * ```
 */
export function toolErrorText(call: ToolCall): string | null {
  if (call.status === "success" || call.status === "incomplete") return null;
  if (!isUnavailable(call.result) && Array.isArray(call.result.content)) {
    const text = (call.result.content as unknown[])
      .filter(
        (part): part is { type: "text"; text: string } =>
          isRecord(part) && part.type === "text" && typeof part.text === "string",
      )
      .map((part) => part.text)
      .join("\n");
    if (text) return text;
  }
  if (call.error) return call.error.message;
  if (isUnavailable(call.result)) return call.result.reason;
  return null;
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
  if (call.evidence === "reported" && call.correlation === "ambiguous") return undefined;
  return call;
}

/**
 * Why a call does not count under `evidence`, for failure tables: a report the kit never
 * saw on the wire, say. Null when it counts.
 *
 * @example
 * ```ts
 * notCountedBecause(call, "wire"); // "reported only: the harness reported it, the wire did not see it"
 * ```
 */
export function notCountedBecause(call: ToolCall, evidence: EvidenceFilter): string | null {
  if (viewOf(call, evidence)) return null;
  if (evidence === "reported") return "not reported by the harness (seen on the wire only)";
  if (call.correlation === "ambiguous") {
    return `ambiguous report${call.correlationNote ? `: ${call.correlationNote}` : ""}`;
  }
  return "reported only: the harness reported it, the wire did not see it";
}

function isTurnSnapshot(value: unknown): value is TurnSnapshot {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as TurnSnapshot).turnId === "string" &&
    typeof (value as TurnSnapshot).number === "number"
  );
}

function turnIdOf(turn: TurnRef, subject: QuerySubject): string {
  if (typeof turn === "string") return turn;
  if (typeof turn === "number") {
    const id = subject.turns.get(turn);
    if (!id) throw new QueryError(`Turn ${turn} is not a turn of this ${subject.description}.`);
    return id;
  }
  if (isTurnResult(turn)) return turn.snapshot.turnId;
  if (isTurnSnapshot(turn)) return turn.turnId;
  throw new QueryError(
    "turn must be a TurnResult (from send()), its snapshot, a turn id, or a turn number.",
  );
}

/**
 * A turn's number for messages: `1` for a TurnResult or snapshot of turn 1, else as given.
 *
 * @example
 * ```ts
 * describeTurn(first); // "1"
 * describeTurn("exec-1/turn-2"); // "\"exec-1/turn-2\""
 * ```
 */
export function describeTurn(turn: TurnRef): string {
  if (isTurnResult(turn)) return String(turn.snapshot.number);
  if (isTurnSnapshot(turn)) return String(turn.number);
  return JSON.stringify(turn);
}

function describeCount(query: ToolCallQuery): string {
  if (query.count !== undefined) return `exactly ${query.count}`;
  if (query.minCount !== undefined && query.maxCount !== undefined)
    return `between ${query.minCount} and ${query.maxCount}`;
  if (query.maxCount !== undefined) return `at most ${query.maxCount}`;
  return `at least ${query.minCount ?? 1}`;
}

function checkEvidence(evidence: unknown): EvidenceFilter {
  if (evidence === undefined) return "wire";
  if (evidence !== "wire" && evidence !== "reported" && evidence !== "any") {
    throw new QueryError(
      `evidence must be "wire", "reported" or "any", got ${JSON.stringify(evidence)}.`,
    );
  }
  return evidence;
}

function checkNonNegative(field: string, value: unknown): void {
  if (value !== undefined && (typeof value !== "number" || !(value >= 0))) {
    throw new QueryError(`${field} must be a non-negative number, got ${JSON.stringify(value)}.`);
  }
}

function assertCanProveAbsence(subject: QuerySubject, negative: boolean, exact: boolean): void {
  if (negative && !subject.finished) {
    throw new QueryError(
      "An assertion that a call did not happen (.not, count: 0, maxCount: 0) needs a finished subject: " +
        "use session.result after close, a TurnResult, or a closed client's finalTrace.",
    );
  }
  // "Exactly N" (or "exactly these calls") is also a claim that no further call happened.
  if ((negative || exact) && subject.gaps.length > 0) {
    throw new QueryError(
      `Cannot prove that a call did not happen (nor an exact count): the evidence has gaps (${subject.gaps.join("; ")}). ` +
        "A call may have crossed unseen; fix what broke the capture.",
    );
  }
}

function assertOneServer(subject: QuerySubject, tool: string | undefined, server: unknown): void {
  if (tool === undefined || server !== undefined) return;
  const servers = [
    ...new Set(subject.calls.filter((call) => call.tool === tool).map((call) => call.server)),
  ];
  if (servers.length > 1) {
    throw new QueryError(
      `Tool "${tool}" was called on several servers (${servers.join(", ")}); say which with { server }.`,
    );
  }
}

/** One test per filter of a query, by name, so a near miss can say which ones failed. */
type Filter = readonly [name: string, test: (call: ToolCall) => boolean];

function filtersOf(
  query: ToolCallQuery,
  subject: QuerySubject,
  equals: Equality,
): readonly Filter[] {
  const filters: Filter[] = [];
  const argsEquals = query.argumentsUnordered ? unorderedEquals(equals) : equals;
  if (query.tool !== undefined) filters.push(["tool", (call) => call.tool === query.tool]);
  if (query.server !== undefined) filters.push(["server", (call) => call.server === query.server]);
  if (query.turn !== undefined) {
    const turnId = turnIdOf(query.turn, subject);
    filters.push(["turn", (call) => call.turnId === turnId]);
  }
  if (query.status !== undefined) {
    const statuses: readonly ToolCallStatus[] = Array.isArray(query.status)
      ? query.status
      : [query.status as ToolCallStatus];
    filters.push(["status", (call) => statuses.includes(call.status)]);
  }
  const argumentsMatch = query.argumentsMatch ?? "exact";
  if (!["exact", "partial", "ignored"].includes(argumentsMatch)) {
    throw new QueryError(
      `argumentsMatch must be "exact", "partial" or "ignored", got ${JSON.stringify(argumentsMatch)}.`,
    );
  }
  if (query.arguments !== undefined && argumentsMatch !== "ignored") {
    filters.push([
      "arguments",
      (call) =>
        !isUnavailable(call.arguments) &&
        (argumentsMatch === "partial"
          ? partialEquals(call.arguments, query.arguments, argsEquals)
          : argsEquals(call.arguments, query.arguments)),
    ]);
  }
  if (query.result !== undefined) {
    const expected = normalizeExpectedResult(query.result);
    const partial = (query.resultMatch ?? "partial") === "partial";
    filters.push([
      "result",
      (call) => {
        const actual = resultProjection(call);
        if (isUnavailable(actual)) return false;
        return partial ? partialEquals(actual, expected, equals) : equals(actual, expected);
      },
    ]);
  }
  if (query.minLatencyMs !== undefined || query.maxLatencyMs !== undefined) {
    filters.push([
      "latency",
      (call) =>
        !isUnavailable(call.latencyMs) &&
        call.latencyMs >= (query.minLatencyMs ?? 0) &&
        call.latencyMs <= (query.maxLatencyMs ?? Infinity),
    ]);
  }
  if (query.predicate !== undefined) {
    if (typeof query.predicate !== "function") {
      throw new QueryError("predicate must be a function of the call.");
    }
    filters.push(["predicate", query.predicate]);
  }
  return filters;
}

/** The observed call nearest to what a query asked, and which of its filters it failed. */
export interface NearMiss {
  readonly call: ToolCall;
  /** The filters the call failed: `tool`, `server`, `turn`, `status`, `arguments`, ... */
  readonly failed: readonly string[];
}

// A near miss that got the tool, where and what right is the more telling one.
const FILTER_WEIGHT: Readonly<Record<string, number>> = {
  tool: 8,
  server: 4,
  turn: 4,
  arguments: 3,
  result: 2,
};

function nearestOf(observed: readonly ToolCall[], filters: readonly Filter[]): NearMiss | null {
  let best: NearMiss | null = null;
  let bestScore = -1;
  for (const call of observed) {
    const failed = filters.filter(([, test]) => !test(call)).map(([name]) => name);
    const score = filters
      .filter(([name]) => !failed.includes(name))
      .reduce((sum, [name]) => sum + (FILTER_WEIGHT[name] ?? 1), 0);
    if (score > bestScore) {
      best = { call, failed };
      bestScore = score;
    }
  }
  return best;
}

/**
 * A tool name close to `name` among `known` ("did you mean add_todo?"), or null. Close: a
 * small edit distance, or the same words in another case or separator.
 *
 * @example
 * ```ts
 * suggestToolName("shipping_qoute", ["shipping_quote", "refund"]); // "shipping_quote"
 * ```
 */
export const suggestToolName: (name: string, known: readonly string[]) => string | null =
  suggestName;

/** The answer to a query. */
export interface QueryOutcome {
  readonly pass: boolean;
  readonly matches: readonly ToolCall[];
  /** Every call the query looked at (after the evidence filter), for failure messages. */
  readonly observed: readonly ToolCall[];
  /** Calls of the subject the chosen evidence does not count, with the reason. */
  readonly notCounted: readonly { readonly call: ToolCall; readonly reason: string }[];
  /** "exactly 1", "at least 1", "between 1 and 3". */
  readonly expectedCount: string;
  /** With no match: the observed call closest to the query, and the filters it failed. */
  readonly nearest: NearMiss | null;
  /** With no call of the asked tool at all: a near tool name that was called. */
  readonly didYouMean: string | null;
}

/**
 * Finds the tool calls of `subject` that match `query` and checks their number. The one
 * engine behind every tool-call matcher.
 *
 * @example
 * ```ts
 * const outcome = queryToolCalls(toQuerySubject(result), { tool: "shipping_quote", turn: 1, count: 1 });
 * if (!outcome.pass) console.log(outcome.nearest?.failed);
 * ```
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
  checkNonNegative("minLatencyMs", query.minLatencyMs);
  checkNonNegative("maxLatencyMs", query.maxLatencyMs);
  if (query.resultMatch !== undefined && !["exact", "partial"].includes(query.resultMatch)) {
    throw new QueryError(
      `resultMatch must be "exact" or "partial", got ${JSON.stringify(query.resultMatch)}.`,
    );
  }
  const evidence = checkEvidence(query.evidence);
  const negative = options.negated === true || query.count === 0 || query.maxCount === 0;
  assertCanProveAbsence(subject, negative, query.count !== undefined);
  assertOneServer(subject, query.tool, query.server);
  const filters = filtersOf(query, subject, equals);
  const observed: ToolCall[] = [];
  const notCounted: { call: ToolCall; reason: string }[] = [];
  for (const call of subject.calls) {
    const view = viewOf(call, evidence);
    if (view) observed.push(view);
    else notCounted.push({ call, reason: notCountedBecause(call, evidence)! });
  }
  const matches = observed.filter((call) => filters.every(([, test]) => test(call)));
  const n = matches.length;
  const pass =
    query.count !== undefined
      ? n === query.count
      : n >= (query.minCount ?? (query.maxCount !== undefined ? 0 : 1)) &&
        (query.maxCount === undefined || n <= query.maxCount);
  const toolSeen =
    query.tool === undefined || subject.calls.some((call) => call.tool === query.tool);
  return {
    pass,
    matches,
    observed,
    notCounted,
    expectedCount: describeCount(query),
    nearest: n === 0 ? nearestOf(observed, filters) : null,
    didYouMean:
      toolSeen || query.tool === undefined
        ? null
        : suggestToolName(
            query.tool,
            subject.calls.map((call) => call.tool),
          ),
  };
}

/**
 * How an expected trajectory compares with the observed calls.
 *
 * - `strict`: the same calls in the same order, nothing else (m3's default).
 * - `unordered`: the same calls in any order, nothing else (m3's `ordered=False`).
 * - `subset`: every expected call happened (any order); others may have too.
 * - `superset`: every observed call was expected (any order); some expected may be missing.
 * - `inOrder`: the expected calls happened in this order; others may come between.
 */
export type TrajectoryMode = "strict" | "unordered" | "subset" | "superset" | "inOrder";

/** One expected step: a tool name, or a tool with its server, arguments and status. */
export type TrajectoryStep =
  | string
  | {
      readonly tool: string;
      readonly server?: string;
      readonly arguments?: unknown;
      readonly status?: ToolCallStatus | readonly ToolCallStatus[];
    };

/** Which calls a trajectory looks at, and how it compares them. */
export interface TrajectoryQuery {
  readonly mode?: TrajectoryMode;
  /** How a step's `arguments` compare: `exact` (default), `partial`, or `ignored`. */
  readonly argumentsMatch?: ArgumentsMatch;
  /** Only calls to this server (steps without a server take it too). */
  readonly server?: string;
  /** Only calls of this turn; without it, the whole session in order. */
  readonly turn?: TurnRef;
  readonly evidence?: EvidenceFilter;
}

/** The answer to a trajectory query. */
export interface TrajectoryOutcome {
  readonly pass: boolean;
  readonly mode: TrajectoryMode;
  /** The calls compared, in order (after the evidence, server and turn filters). */
  readonly observed: readonly ToolCall[];
  /** Calls of the subject the chosen evidence does not count, with the reason. */
  readonly notCounted: readonly { readonly call: ToolCall; readonly reason: string }[];
  /** Expected steps no call answered (by index), and the nearest call for each. */
  readonly missing: readonly {
    readonly index: number;
    readonly step: TrajectoryStep;
    readonly nearest: NearMiss | null;
  }[];
  /** Observed calls no step answered. */
  readonly unexpected: readonly ToolCall[];
  /** For `strict` and `inOrder`: the first expected position that went wrong, if any. */
  readonly firstDifference: number | null;
}

function stepQuery(step: TrajectoryStep, query: TrajectoryQuery): ToolCallQuery {
  if (typeof step === "string") return { tool: step, server: query.server };
  if (typeof step !== "object" || step === null || typeof step.tool !== "string") {
    throw new QueryError(
      `each expected call must be a tool name or { tool, server?, arguments?, status? }, got ${JSON.stringify(step)}.`,
    );
  }
  return {
    tool: step.tool,
    server: step.server ?? query.server,
    arguments: step.arguments,
    argumentsMatch: query.argumentsMatch ?? "exact",
    status: step.status,
  };
}

/**
 * Compares the observed calls (per turn with `turn`, else across the session) with an
 * expected trajectory, in one of five {@link TrajectoryMode}s. Wire evidence by default.
 *
 * @example
 * ```ts
 * const outcome = queryTrajectory(toQuerySubject(result), ["search", { tool: "add_todo", arguments: { title: "milk" } }], { mode: "inOrder", argumentsMatch: "partial" });
 * ```
 *
 * @throws {@link QueryError} for a malformed step or mode, a tool on several servers without
 * a server, or a claim of absence (strict, unordered, superset, `.not`) that the subject
 * cannot prove.
 */
export function queryTrajectory(
  subject: QuerySubject,
  expected: readonly TrajectoryStep[],
  query: TrajectoryQuery = {},
  options: { equals?: Equality; negated?: boolean } = {},
): TrajectoryOutcome {
  const equals = options.equals ?? jsonEquals;
  const mode = query.mode ?? "strict";
  if (!["strict", "unordered", "subset", "superset", "inOrder"].includes(mode)) {
    throw new QueryError(
      `mode must be "strict", "unordered", "subset", "superset" or "inOrder", got ${JSON.stringify(mode)}.`,
    );
  }
  const evidence = checkEvidence(query.evidence);
  const claimsAbsence = mode === "strict" || mode === "unordered" || mode === "superset";
  assertCanProveAbsence(subject, options.negated === true, claimsAbsence);
  const steps = expected.map((step) => stepQuery(step, query));
  for (const step of steps) assertOneServer(subject, step.tool, step.server);
  const scope = filtersOf({ server: query.server, turn: query.turn }, subject, equals);
  const observed: ToolCall[] = [];
  const notCounted: { call: ToolCall; reason: string }[] = [];
  for (const call of subject.calls) {
    if (!scope.every(([, test]) => test(call))) continue;
    const view = viewOf(call, evidence);
    if (view) observed.push(view);
    else notCounted.push({ call, reason: notCountedBecause(call, evidence)! });
  }
  const stepFilters = steps.map((step) => filtersOf(step, subject, equals));
  const fits = (i: number, call: ToolCall): boolean =>
    stepFilters[i]!.every(([, test]) => test(call));

  let assigned: Map<number, number>; // step index -> call index
  let firstDifference: number | null = null;
  if (mode === "strict") {
    for (let i = 0; i < Math.max(steps.length, observed.length); i++) {
      const call = observed[i];
      if (!(i < steps.length && call && fits(i, call))) {
        firstDifference = i;
        break;
      }
    }
    // What is missing or extra reads best as a multiset; the order shows in firstDifference.
    assigned = perfectMatching(
      steps.map((_, index) => index),
      observed,
      (i, call) => fits(i, call),
    );
  } else if (mode === "inOrder") {
    assigned = new Map();
    let position = 0;
    for (let i = 0; i < steps.length; i++) {
      while (position < observed.length && !fits(i, observed[position]!)) position++;
      if (position >= observed.length) {
        firstDifference ??= i;
        continue;
      }
      assigned.set(i, position++);
    }
  } else {
    assigned = perfectMatching(
      steps.map((_, index) => index),
      observed,
      (i, call) => fits(i, call),
    );
  }
  const usedCalls = new Set(assigned.values());
  const missing = steps
    .map((_, index) => index)
    .filter((index) => !assigned.has(index))
    .map((index) => ({
      index,
      step: expected[index]!,
      nearest: nearestOf(
        observed.filter((_, position) => !usedCalls.has(position)),
        stepFilters[index]!,
      ),
    }));
  const unexpected = observed.filter((_, position) => !usedCalls.has(position));
  const pass =
    mode === "strict"
      ? firstDifference === null
      : mode === "unordered"
        ? missing.length === 0 && unexpected.length === 0
        : mode === "superset"
          ? unexpected.length === 0
          : missing.length === 0;
  return { pass, mode, observed, notCounted, missing, unexpected, firstDifference };
}

/** One call of a trajectory snapshot: what is stable across runs and agents. */
export interface TrajectoryCall {
  readonly server: string;
  readonly tool: string;
  readonly arguments: unknown;
  readonly status: ToolCallStatus;
}

/** A session's calls per turn, normalized for a snapshot. */
export interface NormalizedTrajectory {
  /** Turn number (`"-"` for calls outside turns) and its calls. */
  readonly turns: readonly { readonly turn: string; readonly calls: readonly TrajectoryCall[] }[];
}

function sortedKeys(value: unknown): unknown {
  return JSON.parse(canonicalJson(value)) as unknown;
}

/**
 * The session's wire calls per turn (server, tool, arguments with sorted keys, status),
 * without ids, timestamps or latencies, each turn's calls in a canonical order. Order
 * within a turn is left out on purpose: whether an agent's parallel calls overlap on the
 * wire changes from run to run and agent to agent, so no order is stable. Assert an order
 * with `toHaveToolCalls(..., { mode: "strict" })`.
 *
 * @example
 * ```ts
 * normalizeTrajectory(toQuerySubject(result)).turns[0]; // { turn: "1", calls: [{ server: "shipping", tool: "shipping_quote", ... }] }
 * ```
 */
export function normalizeTrajectory(
  subject: QuerySubject,
  evidence: EvidenceFilter = "wire",
): NormalizedTrajectory {
  const numberOf = new Map([...subject.turns].map(([number, id]) => [id, String(number)]));
  const turns = new Map<string, ToolCall[]>();
  for (const turn of [...subject.turns.keys()].sort((a, b) => a - b)) turns.set(String(turn), []);
  for (const call of subject.calls) {
    const view = viewOf(call, checkEvidence(evidence));
    if (!view) continue;
    const turn =
      view.turnId === null
        ? "-"
        : (numberOf.get(view.turnId) ?? /turn-(\d+)$/.exec(view.turnId)?.[1] ?? view.turnId);
    turns.set(turn, [...(turns.get(turn) ?? []), view]);
  }
  const key = (call: ToolCall): string =>
    canonicalJson([call.server, call.tool, call.arguments, call.status]);
  return {
    turns: [...turns].map(([turn, calls]) => {
      return {
        turn,
        calls: [...calls]
          .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
          .map((call) => ({
            server: call.server,
            tool: call.tool,
            arguments: isUnavailable(call.arguments) ? call.arguments : sortedKeys(call.arguments),
            status: call.status,
          })),
      };
    }),
  };
}

/** The protocol version each server's `initialize` answer negotiated, per connection. */
export interface NegotiatedProtocol {
  readonly server: string;
  readonly connection: string;
  readonly version: string;
}

/**
 * The MCP protocol versions the subject's servers negotiated, read from the `initialize`
 * answers on the wire. Empty for a subject without a trace (a TurnResult).
 *
 * @example
 * ```ts
 * negotiatedProtocols(toQuerySubject(result)); // [{ server: "shipping", connection: "shipping#1", version: "2025-06-18" }]
 * ```
 */
export function negotiatedProtocols(subject: QuerySubject): NegotiatedProtocol[] {
  const out: NegotiatedProtocol[] = [];
  for (const entry of subject.trace?.messages ?? []) {
    if (entry.direction !== "from_server" || entry.kind !== "response") continue;
    const result = (entry.message as { result?: unknown } | undefined)?.result;
    if (!isRecord(result) || typeof result.protocolVersion !== "string") continue;
    if (!isRecord(result.capabilities)) continue;
    out.push({
      server: entry.server,
      connection: entry.connection,
      version: result.protocolVersion,
    });
  }
  return out;
}

/**
 * Whether `actual` holds the same items as `expected` in any order (each expected item
 * answered by a different actual one), with a pluggable equality.
 *
 * @example
 * ```ts
 * sameMultiset([{ type: "text", text: "b" }, { type: "text", text: "a" }], [{ type: "text", text: "a" }, { type: "text", text: "b" }]); // true
 * ```
 */
export function sameMultiset(
  actual: readonly unknown[],
  expected: readonly unknown[],
  equals: Equality = jsonEquals,
): boolean {
  return (
    actual.length === expected.length &&
    perfectMatching(expected, actual, (item, candidate) => equals(candidate, item)).size ===
      expected.length
  );
}
