import type { MatcherResult, M3MatcherContext } from "./context.js";
import { errorSection, outcomeSubject } from "./outcome-subject.js";

/** `expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED)`; prints the result's error on failure. */
export function toHaveOutcome(
  this: M3MatcherContext,
  received: unknown,
  expected: string,
): MatcherResult {
  const subject = outcomeSubject(this, "toHaveOutcome", received);
  const actual = subject.snapshot.outcome;
  return {
    pass: actual === expected,
    message: () =>
      `${this.utils.matcherHint("toHaveOutcome", undefined, "outcome", { isNot: this.isNot })}\n\n` +
      `Expected outcome: ${this.isNot ? "not " : ""}${this.utils.printExpected(expected)}\n` +
      `Received outcome: ${this.utils.printReceived(actual)}` +
      errorSection(subject),
  };
}
