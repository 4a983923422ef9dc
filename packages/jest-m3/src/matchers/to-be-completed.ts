import type { MatcherResult, M3MatcherContext } from "./context.js";
import { errorSection, outcomeSubject } from "./outcome-subject.js";

/** `expect(turn).toBeCompleted()`: the outcome is `completed`; prints the error when not. */
export function toBeCompleted(this: M3MatcherContext, received: unknown): MatcherResult {
  const subject = outcomeSubject(this, "toBeCompleted", received);
  const actual = subject.snapshot.outcome;
  return {
    pass: actual === "completed",
    message: () =>
      `${this.utils.matcherHint("toBeCompleted", undefined, "", { isNot: this.isNot })}\n\n` +
      `Expected outcome: ${this.isNot ? "not " : ""}${this.utils.printExpected("completed")}\n` +
      `Received outcome: ${this.utils.printReceived(actual)}` +
      errorSection(subject),
  };
}
