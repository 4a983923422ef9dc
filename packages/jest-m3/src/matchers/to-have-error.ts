import type { MatcherResult, M3MatcherContext } from "./context.js";
import { outcomeSubject } from "./outcome-subject.js";

/**
 * `expect(result).toHaveError(match?)`: the result has an error; with `match`, one whose
 * message contains the string, whose message matches the RegExp, or whose `code` equals it
 * (`toHaveError("M3_TURN_TIMEOUT")`).
 */
export function toHaveError(
  this: M3MatcherContext,
  received: unknown,
  match?: string | RegExp,
): MatcherResult {
  const subject = outcomeSubject(this, "toHaveError", received);
  const error = subject.error;
  const pass =
    error !== null &&
    (match === undefined ||
      (typeof match === "string"
        ? error.code === match || error.message.includes(match)
        : match.test(error.message)));
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint("toHaveError", undefined, match === undefined ? "" : "match", { isNot: this.isNot })}\n\n` +
      (match === undefined
        ? `Expected: ${this.isNot ? "no error" : "an error"}\n`
        : `Expected error ${this.isNot ? "not " : ""}${typeof match === "string" ? "containing" : "matching"}: ${this.utils.printExpected(match)}\n`) +
      `Received error: ${this.utils.printReceived(error === null ? null : `${error.code}: ${error.message}`)}`,
  };
}
