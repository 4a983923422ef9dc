/**
 * Verdicts on pass counts per test and agent between a run and its baseline: Fisher's exact
 * test on each, Holm's correction over all of them, then one word each. A drop is a
 * regression only when it is unlikely to be chance, however large the delta looks; a drop
 * that is, is never one, even when the test still meets its own requirement.
 */
import { fisherExact, type PassCounts } from "../stats/fisher.js";
import { furtherTrials, type FurtherTrials } from "../stats/further-trials.js";
import { holmAdjust } from "../stats/holm.js";

/** The verdict words of `jest-m3 diff`, per test and agent. */
export type PassVerdictWord = "regressed" | "improved" | "unchanged" | "flaky" | "undecided";

/** The method named in every verdict and in the output. */
export const PASS_METHOD = "Fisher's exact test (two-sided), Holm-corrected";

/** The default significance level. */
export const DEFAULT_ALPHA = 0.05;

/** One test on one agent, with its pass counts on both sides. */
export interface PassComparison {
  readonly test: string;
  readonly file: string;
  readonly agent: string;
  readonly baseline: PassCounts;
  readonly run: PassCounts;
  /** The test's verdict changed (passed ↔ failed) between the runs compared. */
  readonly flipped: boolean;
}

/** The verdict on one test and agent. */
export interface PassVerdict {
  readonly test: string;
  readonly file: string;
  readonly agent: string;
  readonly verdict: PassVerdictWord;
  readonly baseline: PassCounts & { readonly rate: number };
  readonly run: PassCounts & { readonly rate: number };
  /** Fisher's exact two-sided p-value: the chance of a split at least this uneven with equal rates. */
  readonly pValue: number;
  /** Holm-adjusted over every comparison of the run: compare it with alpha. */
  readonly adjustedPValue: number;
  readonly method: string;
  /** For `undecided` and `flaky`: the trials that would decide it if the rates hold (null: too many). */
  readonly furtherTrials: FurtherTrials | null;
  readonly flipped: boolean;
}

const rate = (counts: PassCounts): number =>
  counts.trials === 0 ? 0 : counts.passed / counts.trials;

const sameRate = (a: PassCounts, b: PassCounts): boolean =>
  a.passed * b.trials === b.passed * a.trials;

/**
 * Text compared by code points, the same on every machine (`localeCompare` follows the
 * locale, so two CI runners could list the same changes in different orders).
 */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The order the output lists verdicts in: what a reader must act on first. */
export const VERDICT_ORDER: readonly PassVerdictWord[] = [
  "regressed",
  "undecided",
  "flaky",
  "improved",
  "unchanged",
];

/**
 * The verdicts on `comparisons` at significance level `alpha` (family-wise, Holm):
 * `regressed` / `improved` when the adjusted p-value is at most alpha; otherwise
 * `unchanged` when the rates are equal, `flaky` when the test flipped, else `undecided`
 * with the further trials that would decide it at alpha / m (significant whatever the other
 * comparisons do).
 *
 * @example
 * ```ts
 * passVerdicts([{ test: "t", file: "a.test.ts", agent: "codex · m", flipped: true,
 *   baseline: { passed: 20, trials: 20 }, run: { passed: 12, trials: 20 } }], 0.05)[0]!.verdict; // "regressed"
 * ```
 */
export function passVerdicts(
  comparisons: readonly PassComparison[],
  alpha: number = DEFAULT_ALPHA,
): PassVerdict[] {
  const pValues = comparisons.map((row) => fisherExact(row.baseline, row.run));
  const adjusted = holmAdjust(pValues);
  const level = alpha / Math.max(1, comparisons.length);
  const verdicts = comparisons.map((row, index): PassVerdict => {
    const pValue = pValues[index]!;
    const adjustedPValue = adjusted[index]!;
    const before = rate(row.baseline);
    const after = rate(row.run);
    let verdict: PassVerdictWord;
    if (adjustedPValue <= alpha && after !== before) {
      verdict = after < before ? "regressed" : "improved";
    } else if (sameRate(row.baseline, row.run)) verdict = "unchanged";
    else verdict = row.flipped ? "flaky" : "undecided";
    return {
      test: row.test,
      file: row.file,
      agent: row.agent,
      verdict,
      baseline: { ...row.baseline, rate: before },
      run: { ...row.run, rate: after },
      pValue,
      adjustedPValue,
      method: PASS_METHOD,
      furtherTrials:
        verdict === "undecided" || verdict === "flaky"
          ? furtherTrials(row.baseline, row.run, level)
          : null,
      flipped: row.flipped,
    };
  });
  return verdicts.sort(
    (a, b) =>
      VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict) ||
      a.adjustedPValue - b.adjustedPValue ||
      byCodePoint(a.test, b.test) ||
      byCodePoint(a.file, b.file) ||
      byCodePoint(a.agent, b.agent),
  );
}
