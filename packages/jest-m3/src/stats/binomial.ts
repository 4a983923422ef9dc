/**
 * Exact binomial intervals (Clopper-Pearson): the range of pass rates that could well have
 * produced the passes seen. Exact means never narrower than the data allow, even for a
 * handful of trials, at the price of being a little wide.
 */
import { logChoose } from "./fisher.js";

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let sum = 0;
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  for (let i = 0; i <= k; i += 1) sum += Math.exp(logChoose(n, i) + i * lp + (n - i) * lq);
  return Math.min(1, sum);
}

/** The p in [0, 1] where the decreasing `f` crosses `target` (bisection). */
function solveDecreasing(f: (p: number) => number, target: number): number {
  let low = 0;
  let high = 1;
  for (let step = 0; step < 100; step += 1) {
    const middle = (low + high) / 2;
    if (f(middle) > target) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * The Clopper-Pearson interval of a pass rate at `confidence` (two-sided): the lower end is
 * the rate at which `passed` or more passes would happen only (1 - confidence) / 2 of the
 * time, the upper end the rate at which `passed` or fewer would.
 *
 * @example
 * ```ts
 * clopperPearson(10, 10, 0.95); // [0.69, 1]
 * ```
 */
export function clopperPearson(
  passed: number,
  trials: number,
  confidence: number,
): [number, number] {
  // Sequential trials ask the same few intervals after every trial: each is solved once.
  const key = `${passed}/${trials}@${confidence}`;
  let interval = intervals.get(key);
  if (!interval) {
    if (intervals.size >= 10_000) intervals.clear();
    interval = solveInterval(passed, trials, confidence);
    intervals.set(key, interval);
  }
  return [interval[0], interval[1]];
}

const intervals = new Map<string, readonly [number, number]>();

function solveInterval(passed: number, trials: number, confidence: number): [number, number] {
  if (trials === 0) return [0, 1];
  const tail = (1 - confidence) / 2;
  const lower =
    passed === 0 ? 0 : solveDecreasing((p) => binomialCdf(passed - 1, trials, p), 1 - tail);
  const upper =
    passed === trials ? 1 : solveDecreasing((p) => binomialCdf(passed, trials, p), tail);
  return [lower, upper];
}
