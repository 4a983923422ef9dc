import type { MatcherResult, M3MatcherContext } from "./context.js";

/**
 * `expect(toolResult).toHaveStructuredContent({ amount: 9, currency: "USD" })`: the tool
 * result's `structuredContent` equals the expected value (asymmetric matchers allowed).
 */
export function toHaveStructuredContent(
  this: M3MatcherContext,
  received: unknown,
  expected: unknown,
): MatcherResult {
  if (typeof received !== "object" || received === null || !("content" in received)) {
    throw new Error(
      this.utils.matcherErrorMessage(
        this.utils.matcherHint("toHaveStructuredContent", undefined, undefined, {
          isNot: this.isNot,
        }),
        `${this.utils.RECEIVED_COLOR("received")} value must be a tool result (from callTool())`,
        this.utils.printWithType("Received", received, this.utils.printReceived),
      ),
    );
  }
  const actual = (received as { structuredContent?: unknown }).structuredContent;
  const pass = this.equals(actual, expected);
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint("toHaveStructuredContent", undefined, "expected", { isNot: this.isNot })}\n\n` +
      (pass
        ? `Expected: not ${this.utils.printExpected(expected)}\n`
        : `${this.utils.printDiffOrStringify(expected, actual, "Expected", "Received", this.expand !== false)}`),
  };
}
