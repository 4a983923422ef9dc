import {
  elicitationMatchesQuery,
  elicitationsOf,
  type Elicitation,
  type ElicitationQuery,
  type Trace,
} from "@jest-m3/core";
import type { MatcherResult, M3MatcherContext } from "./context.js";

/** Options of `toHaveElicitation`: every given field must match (see `ElicitationQuery`). */
export type ElicitationOptions = ElicitationQuery;

const KEYS = new Set(["message", "mode", "action", "content", "server", "turn", "count"]);

function isTrace(value: unknown): value is Trace {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as Trace).messages) &&
    Array.isArray((value as Trace).toolCalls)
  );
}

function usage(context: M3MatcherContext, problem: string, received?: unknown): never {
  throw new Error(
    context.utils.matcherErrorMessage(
      context.utils.matcherHint("toHaveElicitation", undefined, "expected", {
        isNot: context.isNot,
      }),
      problem,
      received === undefined
        ? undefined
        : context.utils.printWithType("Received", received, context.utils.printReceived),
    ),
  );
}

function describeOne(elicitation: Elicitation): string {
  return (
    `${elicitation.turnId ? `${elicitation.turnId.replace(/^.*\//, "")} ` : ""}${elicitation.server}: ${elicitation.mode} ${JSON.stringify(elicitation.message)} → ${elicitation.action}` +
    (elicitation.content ? ` ${JSON.stringify(elicitation.content)}` : "") +
    (elicitation.error ? ` (${elicitation.error})` : "")
  );
}

/**
 * `expect(client).toHaveElicitation({ message: "address", action: "accept" })`: the server
 * asked for an elicitation that matches (at least one, or exactly `count`). Works on a
 * direct client, a trace, or a session's `ExecutionResult`; read from the wire messages.
 */
export function toHaveElicitation(
  this: M3MatcherContext,
  received: unknown,
  expected: ElicitationOptions = {},
): MatcherResult {
  const trace = isTrace(received)
    ? received
    : typeof received === "object" &&
        received !== null &&
        isTrace((received as { trace?: unknown }).trace)
      ? (received as { trace: Trace }).trace
      : undefined;
  if (!trace) {
    usage(
      this,
      `${this.utils.RECEIVED_COLOR("received")} value must be a DirectClient, a Trace, or an ExecutionResult (session.result)`,
      received,
    );
  }
  if (typeof expected !== "object" || expected === null) {
    usage(this, `${this.utils.EXPECTED_COLOR("expected")} value must be an object of filters`);
  }
  for (const key of Object.keys(expected)) {
    if (!KEYS.has(key)) usage(this, `unknown filter "${key}" (known: ${[...KEYS].join(", ")})`);
  }
  const { turn } = expected;
  if (
    turn !== undefined &&
    typeof turn !== "string" &&
    typeof (turn as { snapshot?: { turnId?: unknown } } | null)?.snapshot?.turnId !== "string"
  ) {
    usage(this, `turn must be a TurnResult (what send() returned) or its turnId`);
  }
  if (expected.count !== undefined && (!Number.isInteger(expected.count) || expected.count < 0)) {
    usage(
      this,
      `count must be a whole number ≥ 0, got ${this.utils.printExpected(expected.count)}`,
    );
  }
  const all = elicitationsOf(trace);
  const matching = all.filter((entry) => elicitationMatchesQuery(entry, expected, this.equals));
  const pass =
    expected.count === undefined ? matching.length > 0 : matching.length === expected.count;
  const { count, turn: _turn, ...rest } = expected;
  const filters =
    turn === undefined
      ? rest
      : { ...rest, turn: typeof turn === "string" ? turn : turn.snapshot.turnId };
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint("toHaveElicitation", undefined, "expected", { isNot: this.isNot })}\n\n` +
      `Expected: ${this.isNot ? "no " : ""}${count === undefined ? "elicitation" : `exactly ${count} elicitation(s)`} matching ${this.utils.printExpected(filters)}\n` +
      `Received: ${matching.length} matching of ${all.length}\n` +
      (all.length
        ? `\nElicitations observed:\n${all.map((entry) => `  ${describeOne(entry)}`).join("\n")}`
        : "\nNo elicitation was observed."),
  };
}
