import { subjectFor, checkOptions, type MatcherResult, type M3MatcherContext } from "./context.js";
import { throwUsage } from "../format/messages.js";

/**
 * `expect(result).toHaveTrace({ completeness: "complete" })`: the evidence has no gaps
 * (`complete`, the default), or has some (`partial`). A gap is a stretch in which a
 * connection could not be observed: no absence can be proven across it.
 */
export function toHaveTrace(
  this: M3MatcherContext,
  received: unknown,
  options: { readonly completeness?: "complete" | "partial" } = {},
): MatcherResult {
  const name = "toHaveTrace";
  checkOptions(this, name, options, ["completeness"]);
  const completeness = options.completeness ?? "complete";
  if (completeness !== "complete" && completeness !== "partial") {
    throwUsage(this, name, 'completeness must be "complete" or "partial"');
  }
  const subject = subjectFor(this, name, received);
  const actual = subject.gaps.length === 0 ? "complete" : "partial";
  return {
    pass: actual === completeness,
    message: () =>
      `${this.utils.matcherHint(name, undefined, "options", { isNot: this.isNot })}\n\n` +
      `Expected trace: ${this.isNot ? "not " : ""}${this.utils.printExpected(completeness)}\n` +
      `Received trace: ${this.utils.printReceived(actual)}` +
      (subject.gaps.length > 0
        ? `\n\nGaps:\n${subject.gaps.map((gap) => `  ${gap}`).join("\n")}`
        : ""),
  };
}
