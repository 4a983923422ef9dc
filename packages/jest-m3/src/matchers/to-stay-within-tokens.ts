import { isUnavailable, type TurnResult } from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import { checkOptions, type MatcherResult, type M3MatcherContext } from "./context.js";
import { describeRequests, modelSubject } from "./model-subject.js";

/** The token budget of `toStayWithinTokens`: at most this many, each optional. */
export interface TokenBudget {
  readonly input?: number;
  readonly output?: number;
  readonly total?: number;
}

/** Options of `toStayWithinTokens`. */
export interface TokenBudgetOptions {
  /** Only this turn of the session (its number or its `TurnResult`). */
  readonly turn?: number | TurnResult;
}

/**
 * `expect(result).toStayWithinTokens({ input: 20_000, output: 2_000 }, { turn: 1 })`: the
 * tokens the provider reported for a session (or one turn) stay within the budget. Usage
 * that was not observed fails, with `.not` too: unavailable is not within or beyond.
 */
export function toStayWithinTokens(
  this: M3MatcherContext,
  received: unknown,
  budget: TokenBudget,
  options: TokenBudgetOptions = {},
): MatcherResult {
  const name = "toStayWithinTokens";
  checkOptions(this, name, budget, ["input", "output", "total"]);
  checkOptions(this, name, options, ["turn"]);
  const limits = Object.entries(budget) as [keyof TokenBudget, unknown][];
  if (limits.length === 0) throwUsage(this, name, "the budget needs input, output or total");
  for (const [key, value] of limits) {
    if (typeof value !== "number" || !(value >= 0)) {
      throwUsage(this, name, `budget.${key} must be a non-negative number of tokens`, { value });
    }
  }
  const subject = modelSubject(this, name, received, options.turn);
  const hint = this.utils.matcherHint(name, undefined, "budget", { isNot: this.isNot });
  const asked = limits.map(([key, value]) => `${key} ≤ ${String(value)}`).join(", ");
  const usage = subject.usage;
  if (isUnavailable(usage)) {
    return {
      pass: this.isNot === true,
      message: () =>
        `${hint}\n\nExpected ${subject.what}'s tokens: ${this.isNot ? "not " : ""}${this.utils.printExpected(asked)}\n` +
        `Received: (usage unavailable: ${usage.reason})`,
    };
  }
  const used = { input: usage.inputTokens, output: usage.outputTokens, total: usage.totalTokens };
  const over = limits.filter(([key, value]) => used[key] > (value as number));
  return {
    pass: over.length === 0,
    message: () =>
      `${hint}\n\nExpected ${subject.what}'s tokens: ${this.isNot ? "not " : ""}${this.utils.printExpected(asked)}\n` +
      `Received: ${this.utils.printReceived(`input ${used.input}, output ${used.output}, total ${used.total}`)}` +
      (over.length > 0 ? ` (over: ${over.map(([key]) => key).join(", ")})` : "") +
      `\n\nModel requests:\n${isUnavailable(subject.requests) ? `  (${subject.requests.reason})` : describeRequests(subject.requests)}`,
  };
}
