import { throwUsage } from "../format/messages.js";
import type { MatcherResult, M3MatcherContext } from "./context.js";
import { isToolResult, toolErrorSection } from "./text-subject.js";

/**
 * `expect(toolResult).toHaveStructuredContent({ amount: 9, currency: "USD" })`: the tool
 * result's `structuredContent` equals the expected value (asymmetric matchers allowed).
 * When the tool returned an error, the message shows its text.
 */
export function toHaveStructuredContent(
  this: M3MatcherContext,
  received: unknown,
  expected: unknown,
): MatcherResult {
  if (!isToolResult(received)) {
    throwUsage(
      this,
      "toHaveStructuredContent",
      `${this.utils.RECEIVED_COLOR("received")} value must be a tool result (from callTool())`,
      { value: received },
    );
  }
  const actual = received.structuredContent;
  const pass = this.equals(actual, expected);
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint("toHaveStructuredContent", undefined, "expected", { isNot: this.isNot })}\n\n` +
      (pass
        ? `Expected: not ${this.utils.printExpected(expected)}\n`
        : `${this.utils.printDiffOrStringify(expected, actual, "Expected", "Received", this.expand !== false)}`) +
      toolErrorSection(received),
  };
}
