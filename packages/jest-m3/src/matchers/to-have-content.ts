import { isUnavailable, type ToolCall } from "@jest-m3/core";
import { sameMultiset } from "@jest-m3/core/runner";
import { throwUsage } from "../format/messages.js";
import { checkOptions, type MatcherResult, type M3MatcherContext } from "./context.js";
import { isToolResult, toolErrorSection } from "./text-subject.js";

function contentOf(
  context: M3MatcherContext,
  received: unknown,
): { content: readonly unknown[] | null; result: unknown } {
  if (isToolResult(received)) return { content: received.content, result: received };
  const call = received as ToolCall | null;
  if (typeof call === "object" && call !== null && "tool" in call && "result" in call) {
    if (isUnavailable(call.result)) return { content: null, result: null };
    return { content: (call.result.content as unknown[] | undefined) ?? [], result: call.result };
  }
  return throwUsage(
    context,
    "toHaveContent",
    `${context.utils.RECEIVED_COLOR("received")} value must be a tool result (from callTool()) or a ToolCall`,
    { value: received },
  );
}

/**
 * `expect(toolResult).toHaveContent([{ type: "text", text: "Quote calculated" }], { ordered? })`:
 * the result's content blocks equal these, in this order (default) or in any order.
 */
export function toHaveContent(
  this: M3MatcherContext,
  received: unknown,
  expected: readonly unknown[],
  options: { readonly ordered?: boolean } = {},
): MatcherResult {
  const name = "toHaveContent";
  checkOptions(this, name, options, ["ordered"]);
  if (!Array.isArray(expected)) {
    throwUsage(this, name, "expected must be an array of content blocks", {
      value: expected,
      label: "Expected",
    });
  }
  const { content, result } = contentOf(this, received);
  const ordered = options.ordered !== false;
  const equals = (a: unknown, b: unknown): boolean => this.equals(a, b);
  const pass =
    content !== null &&
    (ordered ? equals(content, expected) : sameMultiset(content, expected, equals));
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint(name, undefined, "expected", { isNot: this.isNot, secondArgument: "options" })}\n\n` +
      (content === null
        ? `Expected content${ordered ? "" : " (any order)"}: ${this.utils.printExpected(expected)}\nReceived: (the call has no result)`
        : pass
          ? `Expected content${ordered ? "" : " (any order)"}: not ${this.utils.printExpected(expected)}`
          : `Content compared${ordered ? " in order" : " in any order"}:\n${this.utils.printDiffOrStringify(expected, content, "Expected", "Received", this.expand !== false)}`) +
      toolErrorSection(result),
  };
}
