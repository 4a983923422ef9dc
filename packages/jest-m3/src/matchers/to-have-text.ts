import type { MatcherResult, M3MatcherContext } from "./context.js";
import { textOf, toolErrorSection } from "./text-subject.js";

function textMatcher(
  context: M3MatcherContext,
  name: string,
  received: unknown,
  expected: string | RegExp,
  test: (text: string) => boolean,
  wording: string,
): MatcherResult {
  const text = textOf(context, name, received);
  return {
    pass: text !== null && test(text),
    message: () =>
      `${context.utils.matcherHint(name, undefined, "expected", { isNot: context.isNot })}\n\n` +
      `Expected text ${context.isNot ? "not " : ""}${wording}: ${context.utils.printExpected(expected)}\n` +
      `Received text: ${text === null ? "(the turn has no reply)" : context.utils.printReceived(text)}` +
      toolErrorSection(received),
  };
}

/** `expect(turn).toHaveText("exact reply")` (also for a tool result's text content). */
export function toHaveText(
  this: M3MatcherContext,
  received: unknown,
  expected: string,
): MatcherResult {
  return textMatcher(
    this,
    "toHaveText",
    received,
    expected,
    (text) => text === expected,
    "equal to",
  );
}

/** `expect(turn).toHaveTextContaining("15.5")`. */
export function toHaveTextContaining(
  this: M3MatcherContext,
  received: unknown,
  expected: string,
): MatcherResult {
  return textMatcher(
    this,
    "toHaveTextContaining",
    received,
    expected,
    (text) => text.includes(expected),
    "containing",
  );
}

/** `expect(turn).toMatchText(/\b15\.5\b/)`. */
export function toMatchText(
  this: M3MatcherContext,
  received: unknown,
  expected: RegExp | string,
): MatcherResult {
  const pattern = typeof expected === "string" ? new RegExp(expected) : expected;
  return textMatcher(
    this,
    "toMatchText",
    received,
    expected,
    (text) => pattern.test(text),
    "matching",
  );
}
