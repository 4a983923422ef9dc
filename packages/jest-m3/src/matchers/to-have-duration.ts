import { isUnavailable } from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import { checkOptions, type MatcherResult, type M3MatcherContext } from "./context.js";

/** Options of `toHaveDuration`. */
export interface DurationOptions {
  /** At least this many milliseconds. */
  readonly minMs?: number;
  /** At most this many milliseconds. */
  readonly maxMs?: number;
  /** With an expected duration: how far off it may be (default 0). */
  readonly toleranceMs?: number;
}

/** A duration in ms, or why there is none, for a turn, a session or a tool call. */
function durationOf(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
): { ms: number | null; what: string; why?: string } {
  if (typeof received === "object" && received !== null) {
    const snapshot = (received as { snapshot?: { createdAt?: unknown; finishedAt?: unknown } })
      .snapshot;
    if (snapshot && typeof snapshot.createdAt === "number") {
      const what = "turnId" in snapshot ? "turn" : "session";
      return typeof snapshot.finishedAt === "number"
        ? { ms: Math.round(snapshot.finishedAt - snapshot.createdAt), what }
        : { ms: null, what, why: `the ${what} has not finished` };
    }
    if ("latencyMs" in received && "tool" in received) {
      const latency = (received as { latencyMs: unknown }).latencyMs;
      if (typeof latency === "number") return { ms: Math.round(latency), what: "tool call" };
      return {
        ms: null,
        what: "tool call",
        why: isUnavailable(latency) ? latency.reason : "no latency",
      };
    }
  }
  return throwUsage(
    context,
    matcher,
    `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult, a TurnResult or a ToolCall`,
    { value: received },
  );
}

function durationMatcher(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
  bounds: { min: number; max: number },
  asked: string,
  expectedArgs: string,
): MatcherResult {
  const { ms, what, why } = durationOf(context, matcher, received);
  for (const [label, value] of [
    ["min", bounds.min],
    ["max", bounds.max],
  ] as const) {
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throwUsage(context, matcher, `the ${label} duration must be a non-negative number of ms`);
    }
  }
  if (bounds.min > bounds.max) throwUsage(context, matcher, "the minimum is above the maximum");
  return {
    pass: ms !== null && ms >= bounds.min && ms <= bounds.max,
    message: () =>
      `${context.utils.matcherHint(matcher, undefined, expectedArgs, { isNot: context.isNot })}\n\n` +
      `Expected ${what} duration: ${context.isNot ? "not " : ""}${context.utils.printExpected(asked)}\n` +
      `Received ${what} duration: ${ms === null ? `(unavailable: ${why})` : context.utils.printReceived(`${ms} ms`)}`,
  };
}

/**
 * `expect(turn).toHaveDuration({ maxMs: 30_000 })`, or `toHaveDuration(1200, { toleranceMs: 300 })`:
 * how long a turn, a session (created to finished) or a tool call (its latency) took.
 */
export function toHaveDuration(
  this: M3MatcherContext,
  received: unknown,
  expected?: number | DurationOptions,
  options: DurationOptions = {},
): MatcherResult {
  const name = "toHaveDuration";
  const opts = typeof expected === "object" && expected !== null ? expected : options;
  checkOptions(this, name, opts, ["minMs", "maxMs", "toleranceMs"]);
  if (typeof expected === "number") {
    if (opts.minMs !== undefined || opts.maxMs !== undefined) {
      throwUsage(this, name, "an expected duration cannot be combined with minMs or maxMs");
    }
    const tolerance = opts.toleranceMs ?? 0;
    return durationMatcher(
      this,
      name,
      received,
      { min: Math.max(0, expected - tolerance), max: expected + tolerance },
      tolerance > 0 ? `${expected} ms ± ${tolerance} ms` : `${expected} ms`,
      "expected",
    );
  }
  if (expected !== undefined && (typeof expected !== "object" || expected === null)) {
    throwUsage(this, name, "expected must be a number of ms or { minMs?, maxMs? }", {
      value: expected,
      label: "Expected",
    });
  }
  if (opts.toleranceMs !== undefined) {
    throwUsage(this, name, "toleranceMs needs an expected duration");
  }
  const min = opts.minMs ?? 0;
  const max = opts.maxMs ?? Infinity;
  return durationMatcher(
    this,
    name,
    received,
    { min, max },
    max === Infinity ? `at least ${min} ms` : `between ${min} and ${max} ms`,
    "options",
  );
}

/** `expect(turn).toHaveDurationBetween(100, 30_000)`: min ≤ duration ≤ max, in ms. */
export function toHaveDurationBetween(
  this: M3MatcherContext,
  received: unknown,
  minMs: number,
  maxMs: number,
): MatcherResult {
  return durationMatcher(
    this,
    "toHaveDurationBetween",
    received,
    { min: minMs, max: maxMs },
    `between ${minMs} and ${maxMs} ms`,
    "minMs, maxMs",
  );
}
