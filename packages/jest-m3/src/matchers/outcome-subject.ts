import type { ExecutionResult, TurnResult } from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import type { MatcherResult, M3MatcherContext } from "./context.js";

/** A result with an outcome: a session's ExecutionResult or a TurnResult. */
export type OutcomeSubject = ExecutionResult | TurnResult;

/** Checks the received value is a result with an outcome, or throws a usage error. */
export function outcomeSubject(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
): OutcomeSubject {
  const snapshot = (received as { snapshot?: { outcome?: unknown } } | null)?.snapshot;
  if (typeof received !== "object" || received === null || !snapshot || !("outcome" in snapshot)) {
    throwUsage(
      context,
      matcher,
      `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult (session.result) or a TurnResult (from send())`,
      { value: received },
    );
  }
  return received as OutcomeSubject;
}

/** What the result says went wrong, for failure messages. */
export function errorSection(subject: OutcomeSubject): string {
  return subject.error
    ? `\n\nError (${subject.error.code}):\n  ${subject.error.message.split("\n").join("\n  ")}`
    : "";
}

/**
 * A matcher of one field of the subject's snapshot (`outcome` or `lifecycle`) being `expected`;
 * `aside` adds to the received line (e.g. the outcome beside a lifecycle).
 */
export function snapshotFieldMatcher(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
  expected: string,
  field: "outcome" | "lifecycle",
  aside: (subject: OutcomeSubject) => string = () => "",
): MatcherResult {
  const subject = outcomeSubject(context, matcher, received);
  const actual = subject.snapshot[field];
  const { utils, isNot } = context;
  return {
    pass: actual === expected,
    message: () =>
      `${utils.matcherHint(matcher, undefined, field, { isNot })}\n\n` +
      `Expected ${field}: ${isNot ? "not " : ""}${utils.printExpected(expected)}\n` +
      `Received ${field}: ${utils.printReceived(actual)}${aside(subject)}` +
      errorSection(subject),
  };
}
