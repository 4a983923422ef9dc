import type { ExecutionResult, TurnResult } from "@jest-m3/core";
import type { M3MatcherContext } from "./context.js";

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
    throw new Error(
      context.utils.matcherErrorMessage(
        context.utils.matcherHint(matcher, undefined, undefined, { isNot: context.isNot }),
        `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult (session.result) or a TurnResult (from send())`,
        context.utils.printWithType("Received", received, context.utils.printReceived),
      ),
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
