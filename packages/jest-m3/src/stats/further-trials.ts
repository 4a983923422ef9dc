/**
 * How many more trials would decide an undecided comparison: the smallest number that, if
 * the pass rates stayed as observed, would make Fisher's exact test significant at the
 * level given. A plan for the next run, not a promise: the rates seen may move.
 */
import { fisherExact, type PassCounts } from "./fisher.js";

/** Further trials that would decide a comparison, per side. */
export interface FurtherTrials {
  /** More trials of the compared run (the code as it is now). */
  readonly run: number;
  /** More trials of the baseline (0 when the run's alone are enough). */
  readonly baseline: number;
}

const CAP = 100_000;

const grown = (counts: PassCounts, more: number): PassCounts => {
  const trials = counts.trials + more;
  return { trials, passed: Math.round((counts.passed / counts.trials) * trials) };
};

/** The smallest k in [1, CAP] with `decides(k)`, when `decides(CAP)` (doubling, then halving). */
function smallest(decides: (k: number) => boolean): number | null {
  if (!decides(CAP)) return null;
  let high = 1;
  while (high < CAP && !decides(high)) high *= 2;
  high = Math.min(high, CAP);
  let low = Math.floor(high / 2);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (decides(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The further trials that would make the difference between `baseline` and `run`
 * significant at `level` (a p-value at most `level`), rates staying as observed: the
 * run's trials alone when they can, else as many more on each side. Null when the rates are
 * equal (no difference to show) or even 100,000 more would not do.
 *
 * @example
 * ```ts
 * furtherTrials({ passed: 3, trials: 3 }, { passed: 2, trials: 3 }, 0.05); // { run: 14, baseline: 14 } or so
 * ```
 */
export function furtherTrials(
  baseline: PassCounts,
  run: PassCounts,
  level: number,
): FurtherTrials | null {
  const key = `${baseline.passed}/${baseline.trials} ${run.passed}/${run.trials} ${level}`;
  if (!known.has(key)) {
    // The same few tables recur across a suite: each search is done once per process.
    if (known.size >= 10_000) known.clear();
    known.set(key, search(baseline, run, level));
  }
  return known.get(key)!;
}

const known = new Map<string, FurtherTrials | null>();

function search(baseline: PassCounts, run: PassCounts, level: number): FurtherTrials | null {
  if (baseline.trials === 0 || run.trials === 0) return null;
  if (baseline.passed * run.trials === run.passed * baseline.trials) return null;
  // A p-value equal to the level up to rounding counts as reaching it.
  const decides = (p: number): boolean => p <= level * (1 + 1e-9);
  const runOnly = smallest((k) => decides(fisherExact(baseline, grown(run, k))));
  if (runOnly !== null) return { run: runOnly, baseline: 0 };
  const both = smallest((k) => decides(fisherExact(grown(baseline, k), grown(run, k))));
  return both === null ? null : { run: both, baseline: both };
}
