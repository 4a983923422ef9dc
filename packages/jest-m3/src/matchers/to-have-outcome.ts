import type { MatcherResult, M3MatcherContext } from "./context.js";
import { snapshotFieldMatcher } from "./outcome-subject.js";

/** `expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED)`; prints the result's error on failure. */
export function toHaveOutcome(
  this: M3MatcherContext,
  received: unknown,
  expected: string,
): MatcherResult {
  return snapshotFieldMatcher(this, "toHaveOutcome", received, expected, "outcome");
}
