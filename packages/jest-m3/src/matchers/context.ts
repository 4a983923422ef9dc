import type { MatcherContext } from "expect";
import { QueryError } from "@jest-m3/core";
import { toQuerySubject, type QuerySubject } from "@jest-m3/core/runner";

/** The `this` of every m3 matcher. */
export type M3MatcherContext = MatcherContext;

/** The result every matcher returns. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * Normalizes the received value for tool-call matchers; a wrong subject is a usage error
 * (reads differently from a failed expectation).
 */
export function subjectFor(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
): QuerySubject {
  try {
    return toQuerySubject(received);
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    throw new Error(
      context.utils.matcherErrorMessage(
        context.utils.matcherHint(matcher, undefined, undefined, { isNot: context.isNot }),
        `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult (session.result), a TurnResult, a Trace, or a closed DirectClient`,
        context.utils.printWithType("Received", received, context.utils.printReceived),
      ),
    );
  }
}

/** Turns a query usage error into a matcher usage error. */
export function usageError(context: M3MatcherContext, matcher: string, error: unknown): never {
  if (error instanceof QueryError) {
    throw new Error(
      context.utils.matcherErrorMessage(
        context.utils.matcherHint(matcher, undefined, undefined, { isNot: context.isNot }),
        error.message,
      ),
    );
  }
  throw error;
}
