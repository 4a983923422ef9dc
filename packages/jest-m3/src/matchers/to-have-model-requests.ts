import { isUnavailable, type TurnResult } from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import { checkOptions, type MatcherResult, type M3MatcherContext } from "./context.js";
import { describeRequests, modelSubject } from "./model-subject.js";

/** Options of `toHaveModelRequests`: bounds on the number of model round trips. */
export interface ModelRequestsOptions {
  readonly max?: number;
  readonly min?: number;
  /** Only this turn of the session (its number or its `TurnResult`). */
  readonly turn?: number | TurnResult;
}

/**
 * `expect(turn).toHaveModelRequests({ max: 3 })`: how many requests the agent sent its
 * model (every request the provider tap saw: generations, token counts, titles). Not
 * observed fails, with `.not` too.
 */
export function toHaveModelRequests(
  this: M3MatcherContext,
  received: unknown,
  options: ModelRequestsOptions,
): MatcherResult {
  const name = "toHaveModelRequests";
  checkOptions(this, name, options, ["max", "min", "turn"]);
  const { max, min } = options;
  if (max === undefined && min === undefined) throwUsage(this, name, "give max, min or both");
  for (const [key, value] of [
    ["max", max],
    ["min", min],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throwUsage(this, name, `${key} must be a non-negative integer`, { value });
    }
  }
  const subject = modelSubject(this, name, received, options.turn);
  const hint = this.utils.matcherHint(name, undefined, "options", { isNot: this.isNot });
  const asked = [
    min !== undefined ? `at least ${min}` : "",
    max !== undefined ? `at most ${max}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  const requests = subject.requests;
  if (isUnavailable(requests)) {
    return {
      pass: this.isNot === true,
      message: () =>
        `${hint}\n\nExpected ${subject.what}'s model requests: ${this.isNot ? "not " : ""}${this.utils.printExpected(asked)}\n` +
        `Received: (unavailable: ${requests.reason})`,
    };
  }
  const count = requests.length;
  return {
    pass: (min === undefined || count >= min) && (max === undefined || count <= max),
    message: () =>
      `${hint}\n\nExpected ${subject.what}'s model requests: ${this.isNot ? "not " : ""}${this.utils.printExpected(asked)}\n` +
      `Received: ${this.utils.printReceived(count)}\n\n${describeRequests(requests)}`,
  };
}
