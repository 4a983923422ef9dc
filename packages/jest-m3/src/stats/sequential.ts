/**
 * When sequential trials may stop: after each trial, either the outcome can no longer change
 * (curtailment: exact), or the exact (Clopper-Pearson) interval of the pass rate lies wholly
 * above or below the required rate. Looking after every trial gives chance many tries, so
 * each look uses 1/maxTrials of the error allowed (Bonferroni over the looks): the chance
 * that any early stop decides wrongly stays at most 1 - confidence, however many looks.
 */
import { clopperPearson } from "./binomial.js";

/** Why sequential trials stopped. */
export type TrialsStop =
  /** Enough trials passed: the rest cannot fail the requirement. */
  | "requirement met"
  /** Too many failed: the rest cannot reach the requirement. */
  | "requirement out of reach"
  /** The pass rate's interval lies wholly above minRate. */
  | "rate above minRate"
  /** The pass rate's interval lies wholly below minRate. */
  | "rate below minRate"
  /** Every trial up to the cap ran. */
  | "all trials run";

/** What the sequential rule needs to know. */
export interface SequentialPlan {
  /** The most trials to run. */
  readonly maxTrials: number;
  /** Passes needed of maxTrials when all of them run. */
  readonly atLeast: number;
  /** The required pass rate, when the requirement is a rate. */
  readonly minRate?: number;
  /** Confidence of an early stop on the rate's interval, e.g. 0.95. */
  readonly confidence: number;
}

/** The decision after some trials: stop (with why and the verdict) or go on. */
export type SequentialDecision =
  | { readonly stop: false }
  | { readonly stop: true; readonly reason: TrialsStop; readonly passes: boolean };

/**
 * Whether to stop after `passed` of `run` trials under `plan`.
 *
 * @example
 * ```ts
 * decideTrials(11, 11, { maxTrials: 30, atLeast: 15, minRate: 0.5, confidence: 0.95 });
 * // { stop: true, reason: "rate above minRate", passes: true }
 * ```
 */
export function decideTrials(
  passed: number,
  run: number,
  plan: SequentialPlan,
): SequentialDecision {
  const left = plan.maxTrials - run;
  if (passed >= plan.atLeast) return { stop: true, reason: "requirement met", passes: true };
  if (passed + left < plan.atLeast) {
    return { stop: true, reason: "requirement out of reach", passes: false };
  }
  if (left <= 0) {
    return { stop: true, reason: "all trials run", passes: passed >= plan.atLeast };
  }
  if (plan.minRate !== undefined && run > 0) {
    const perLook = 1 - (1 - plan.confidence) / plan.maxTrials;
    const [low, high] = clopperPearson(passed, run, perLook);
    if (low > plan.minRate) return { stop: true, reason: "rate above minRate", passes: true };
    if (high < plan.minRate) return { stop: true, reason: "rate below minRate", passes: false };
  }
  return { stop: false };
}

/** The plain sentence a report prints for a stop. */
export function describeStop(reason: TrialsStop, plan: SequentialPlan, run: number): string {
  const look = `${Math.round(plan.confidence * 100)}% confidence over up to ${plan.maxTrials} looks`;
  switch (reason) {
    case "requirement met":
      return `stopped after ${run} of at most ${plan.maxTrials} trials: enough passed, the rest could not fail the test`;
    case "requirement out of reach":
      return `stopped after ${run} of at most ${plan.maxTrials} trials: too many failed, the rest could not pass the test`;
    case "rate above minRate":
      return `stopped after ${run} of at most ${plan.maxTrials} trials: the pass rate is above ${plan.minRate} (exact interval, ${look})`;
    case "rate below minRate":
      return `stopped after ${run} of at most ${plan.maxTrials} trials: the pass rate is below ${plan.minRate} (exact interval, ${look})`;
    case "all trials run":
      return `ran all ${run} trials: the outcome was not decided earlier`;
  }
}
