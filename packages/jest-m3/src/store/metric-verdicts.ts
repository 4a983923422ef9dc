/**
 * Verdicts on measured values per test and agent (turn latency today; judge scores join the
 * same path once they are recorded): the Mann-Whitney U test on the samples of both sides,
 * Holm's correction over the metric's comparisons, and a practical threshold so that a
 * shift too small to matter is not called a change however sure it is.
 */
import { holmAdjust } from "../stats/holm.js";
import { mannWhitney } from "../stats/mann-whitney.js";
import { percentile } from "../report/stats.js";

/** The verdict words of a metric (no `flaky`: a value does not pass or fail). */
export type MetricVerdictWord = "regressed" | "improved" | "unchanged" | "undecided";

/** The samples of one metric for one test and agent on both sides. */
export interface MetricSamples {
  /** e.g. `turn latency (ms)`, `judge score`. */
  readonly metric: string;
  readonly test: string;
  readonly agent: string;
  readonly baseline: readonly number[];
  readonly run: readonly number[];
}

/** How a metric is judged. */
export interface MetricRule {
  /** Larger is better (scores) or worse (latency). */
  readonly higherIsBetter: boolean;
  /**
   * The statistic whose move counts: `p95` for latency (the slow tail users feel), `p50`
   * for scores (the typical verdict). Default `p95`.
   */
  readonly statistic?: "p50" | "p95";
  /** It must move by this ratio at least (either way) to count, e.g. 1.5 (1: any ratio). */
  readonly ratio: number;
  /** ... and by this much at least, in the metric's unit. */
  readonly minChange: number;
}

/** The verdict on one metric of one test and agent. */
export interface MetricVerdict {
  readonly metric: string;
  readonly test: string;
  readonly agent: string;
  readonly verdict: MetricVerdictWord;
  readonly baseline: MetricSummary;
  readonly run: MetricSummary;
  /** The rule's statistic, run / baseline (p95 unless the rule says p50). */
  readonly ratio: number;
  readonly pValue: number;
  readonly adjustedPValue: number;
  /** e.g. `Mann-Whitney U (two-sided, exact), Holm-corrected`. */
  readonly method: string;
}

/** A side's samples in brief. */
export interface MetricSummary {
  readonly samples: number;
  readonly p50: number;
  readonly p95: number;
}

const summary = (values: readonly number[]): MetricSummary => ({
  samples: values.length,
  p50: percentile(values, 50) ?? 0,
  p95: percentile(values, 95) ?? 0,
});

/**
 * The verdicts on `rows` at level `alpha`: `regressed` / `improved` when the Mann-Whitney
 * test is significant after Holm's correction and the rule's statistic (p95 by default)
 * moved past its threshold in the same direction; `undecided` when it moved that far but the test is not (yet)
 * significant; `unchanged` otherwise.
 *
 * @example
 * ```ts
 * metricVerdicts([{ metric: "turn latency (ms)", test: "t", agent: "a",
 *   baseline: [100, 110, 120, 105, 115], run: [900, 950, 1000, 980, 940] }],
 *   { higherIsBetter: false, ratio: 1.5, minChange: 100 }, 0.05)[0]!.verdict; // "regressed"
 * ```
 */
export function metricVerdicts(
  rows: readonly MetricSamples[],
  rule: MetricRule,
  alpha: number,
): MetricVerdict[] {
  const tests = rows.map((row) => mannWhitney(row.run, row.baseline));
  const adjusted = holmAdjust(tests.map((test) => test.p));
  return rows.map((row, index): MetricVerdict => {
    const test = tests[index]!;
    const before = summary(row.baseline);
    const after = summary(row.run);
    const stat = rule.statistic ?? "p95";
    const [was, now] = [before[stat], after[stat]];
    const ratio = was === 0 ? (now === 0 ? 1 : Infinity) : now / was;
    const larger = test.u > (row.run.length * row.baseline.length) / 2;
    const far =
      Math.abs(now - was) >= rule.minChange && (ratio >= rule.ratio || ratio <= 1 / rule.ratio);
    const agrees = larger === now > was;
    const significant = adjusted[index]! <= alpha;
    let verdict: MetricVerdictWord = "unchanged";
    if (far && agrees && significant) {
      verdict = larger === rule.higherIsBetter ? "improved" : "regressed";
    } else if (far) verdict = "undecided";
    return {
      metric: row.metric,
      test: row.test,
      agent: row.agent,
      verdict,
      baseline: before,
      run: after,
      ratio,
      pValue: test.p,
      adjustedPValue: adjusted[index]!,
      method: `Mann-Whitney U (two-sided, ${test.method}), Holm-corrected`,
    };
  });
}
