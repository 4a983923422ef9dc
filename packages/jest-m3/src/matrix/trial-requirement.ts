/**
 * The schema of `trials()`'s requirement, checked before the first trial runs: a misspelt
 * key, `null`, or a requirement every run meets (`atLeast: 0`, `minRate: 0`) is refused,
 * never taken for "any outcome passes".
 */
import { z } from "zod";
import { InvalidArgument } from "@jest-m3/core";
import { checkInput, describeValue, must, strictFields } from "@jest-m3/core/validation";

const AT_LEAST = must(
  "a whole number of passing trials from 1 (atLeast: 0 would pass with every trial failing)",
);
const MIN_RATE = must(
  "a pass rate above 0 and at most 1, e.g. 0.8 (minRate: 0 would pass with every trial failing)",
);

const MIN_MEAN_SCORE = must(
  "a mean judge score above 0 and at most 1, e.g. 0.7 (minMeanScore: 0 would pass with every judge scoring 0)",
);

/** `trials()`'s third argument: which requirement, and its value's type and range. */
export const trialRequirementSchema = strictFields(
  {
    atLeast: z.int(AT_LEAST).min(1, AT_LEAST).optional(),
    minRate: z.number(MIN_RATE).gt(0, MIN_RATE).max(1, MIN_RATE).optional(),
    minMeanScore: z.number(MIN_MEAN_SCORE).gt(0, MIN_MEAN_SCORE).max(1, MIN_MEAN_SCORE).optional(),
    // Sequential trials: their ranges are checked where the plan is made.
    confidence: z.unknown().optional(),
    maxTrials: z.unknown().optional(),
  },
  {
    unknown: "is not a trials() requirement",
    listed: "the requirements are",
    notAnObject: (received) =>
      `must be an object like { atLeast: 4 } or { minRate: 0.8 } (or left out: every trial must pass), got ${describeValue(received)}.`,
  },
);

/**
 * Checks `trials()`'s requirement before any trial runs.
 *
 * @throws InvalidArgument naming the field, what came in and what to write instead.
 */
export function checkTrialRequirement(requirement: unknown): void {
  checkInput(
    trialRequirementSchema,
    requirement,
    (problem) =>
      new InvalidArgument(
        `trials(): ${problem.field === "" ? "the requirement" : problem.field} ${problem.problem}`,
      ),
  );
}
