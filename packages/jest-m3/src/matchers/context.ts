import type { MatcherContext } from "expect";
import { QueryError } from "@jest-m3/core";
import { toQuerySubject, type QuerySubject } from "@jest-m3/core/runner";
import { rethrowQueryError, throwUsage } from "../format/messages.js";

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
    return throwUsage(
      context,
      matcher,
      `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult (session.result), a TurnResult, a Trace, or a closed DirectClient`,
      { value: received },
    );
  }
}

/** Turns a query usage error into a matcher usage error. */
export function usageError(context: M3MatcherContext, matcher: string, error: unknown): never {
  return rethrowQueryError(context, matcher, error);
}

/** Checks an options object against the keys a matcher takes; anything else is a usage error. */
export function checkOptions(
  context: M3MatcherContext,
  matcher: string,
  options: unknown,
  keys: readonly string[],
): void {
  if (typeof options !== "object" || options === null) {
    throwUsage(
      context,
      matcher,
      `options must be an object, got ${context.utils.printExpected(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      throwUsage(context, matcher, `unknown option "${key}"; the options are ${keys.join(", ")}`);
    }
  }
}
