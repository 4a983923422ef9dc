import type { MatcherResult, M3MatcherContext } from "./context.js";
import { errorSection, outcomeSubject } from "./outcome-subject.js";

/**
 * `expect(result).toHaveLifecycle("finished")`: where a session (`created` … `finished`) or a
 * turn (`running`, `finished`) stands.
 */
export function toHaveLifecycle(
  this: M3MatcherContext,
  received: unknown,
  expected: string,
): MatcherResult {
  const subject = outcomeSubject(this, "toHaveLifecycle", received);
  const actual = subject.snapshot.lifecycle;
  return {
    pass: actual === expected,
    message: () =>
      `${this.utils.matcherHint("toHaveLifecycle", undefined, "lifecycle", { isNot: this.isNot })}\n\n` +
      `Expected lifecycle: ${this.isNot ? "not " : ""}${this.utils.printExpected(expected)}\n` +
      `Received lifecycle: ${this.utils.printReceived(actual)} (outcome ${this.utils.printReceived(subject.snapshot.outcome)})` +
      errorSection(subject),
  };
}
