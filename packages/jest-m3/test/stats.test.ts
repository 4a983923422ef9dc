// The statistics behind diff verdicts and sequential trials, against known values: Fisher's
// exact test (textbook tables, checked against R's fisher.test), Holm's correction,
// Mann-Whitney U, the Clopper-Pearson interval, further trials, and the false-alarm rate of
// the verdicts over seeded simulations of suites where nothing changed.
import { binomialCdf, clopperPearson } from "../dist/stats/binomial";
import { fisherExact, logFactorial } from "../dist/stats/fisher";
import { furtherTrials } from "../dist/stats/further-trials";
import { holmAdjust } from "../dist/stats/holm";
import { mannWhitney, normalUpperTail } from "../dist/stats/mann-whitney";
import { decideTrials } from "../dist/stats/sequential";
import { metricVerdicts } from "../dist/store/metric-verdicts";
import { passVerdicts, type PassComparison } from "../dist/store/pass-verdicts";

const counts = (passed: number, trials: number) => ({ passed, trials });

describe("Fisher's exact test (two-sided)", () => {
  test.each([
    // Fisher's lady tasting tea: 3 of 4 cups right vs 1 of 4.
    [3, 4, 1, 4, 0.4857],
    [20, 20, 12, 20, 0.003276],
    [3, 3, 2, 3, 1],
    // R: fisher.test(matrix(c(1, 8, 11, 3), 2, byrow = TRUE))$p.value = 0.002759
    [1, 9, 11, 14, 0.002759],
    [5, 5, 0, 5, 0.007937],
    [500, 1000, 450, 1000, 0.0282],
    [0, 0, 3, 5, 1],
  ])("%i/%i vs %i/%i: p = %d", (x0, n0, x1, n1, p) => {
    expect(fisherExact(counts(x0, n0), counts(x1, n1))).toBeCloseTo(p, 4);
    // Symmetric: which side is the baseline does not matter.
    expect(fisherExact(counts(x1, n1), counts(x0, n0))).toBeCloseTo(p, 4);
  });

  test("20/20 vs 12/20 is significant at 0.05; 3/3 vs 2/3 is not, nor is 5/5 vs 4/5", () => {
    expect(fisherExact(counts(20, 20), counts(12, 20))).toBeLessThan(0.05);
    expect(fisherExact(counts(3, 3), counts(2, 3))).toBeGreaterThan(0.05);
    expect(fisherExact(counts(5, 5), counts(4, 5))).toBeGreaterThan(0.05);
  });

  test("log-factorials stay exact where factorials overflow", () => {
    expect(Math.exp(logFactorial(10))).toBeCloseTo(3628800, 3);
    expect(logFactorial(1000)).toBeCloseTo(5912.128178, 5);
    expect(() => fisherExact(counts(4, 3), counts(1, 3))).toThrow(/passed more than it ran/);
  });
});

describe("Holm's correction", () => {
  test("the textbook example, in the order given", () => {
    // Holm (1979) style: sorted p 0.01, 0.03, 0.04 get ×3, ×2, ×1, kept non-decreasing.
    expect(holmAdjust([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holmAdjust([0.5, 0.001, 0.2, 0.01])).toEqual([0.5, 0.004, 0.4, 0.03]);
    expect(holmAdjust([])).toEqual([]);
  });

  test("over 200 tests one p = 0.001 survives, one p = 0.01 does not", () => {
    const pValues = [0.001, 0.01, ...Array.from({ length: 198 }, () => 0.5)];
    const adjusted = holmAdjust(pValues);
    expect(adjusted[0]).toBeCloseTo(0.2, 10);
    expect(adjusted[1]).toBeCloseTo(1, 10);
    // Never below the raw p-values, never above 1.
    for (const [index, p] of pValues.entries()) {
      expect(adjusted[index]).toBeGreaterThanOrEqual(p);
      expect(adjusted[index]).toBeLessThanOrEqual(1);
    }
  });
});

describe("Mann-Whitney U (two-sided)", () => {
  test("exact for small samples without ties (scipy: 0.02857)", () => {
    expect(mannWhitney([1, 2, 3, 4], [5, 6, 7, 8])).toEqual({
      u: 0,
      p: expect.closeTo(0.028571, 5),
      method: "exact",
    });
    expect(mannWhitney([5, 6, 7, 8], [1, 2, 3, 4]).u).toBe(16);
  });

  test("normal approximation with ties (scipy asymptotic: 0.09217)", () => {
    const result = mannWhitney([1, 2, 2, 3, 4, 10, 11], [5, 6, 7, 8, 2, 12, 13, 14]);
    expect(result).toMatchObject({ u: 13, method: "normal" });
    expect(result.p).toBeCloseTo(0.092167, 5);
  });

  test("the normal tail", () => {
    expect(normalUpperTail(1.959964)).toBeCloseTo(0.025, 8);
    expect(normalUpperTail(4) / 3.167124183311986e-5).toBeCloseTo(1, 8);
    expect(normalUpperTail(-1)).toBeCloseTo(0.841345, 6);
  });
});

describe("Clopper-Pearson interval", () => {
  test("the beta quantiles (scipy beta.ppf)", () => {
    const [low, high] = clopperPearson(3, 10, 0.95);
    expect(low).toBeCloseTo(0.0667395, 6);
    expect(high).toBeCloseTo(0.6524529, 6);
    expect(clopperPearson(10, 10, 0.95)[0]).toBeCloseTo(0.6915029, 6);
    expect(clopperPearson(0, 5, 0.95)).toEqual([0, expect.closeTo(0.5218238, 6)]);
    expect(binomialCdf(2, 10, 0.3)).toBeCloseTo(0.3827828, 6);
  });
});

describe("further trials", () => {
  test("3/3 vs 2/3: the run alone cannot decide it, about 11 more on each side would", () => {
    const more = furtherTrials(counts(3, 3), counts(2, 3), 0.05);
    expect(more).toEqual({ run: 11, baseline: 11 });
    // Check: with them, the rates as observed are significant; with one fewer, not.
    expect(fisherExact(counts(14, 14), counts(Math.round((2 / 3) * 14), 14))).toBeLessThanOrEqual(
      0.05,
    );
    expect(fisherExact(counts(13, 13), counts(Math.round((2 / 3) * 13), 13))).toBeGreaterThan(0.05);
  });

  test("against a large pooled baseline the run's trials alone do; equal rates need none", () => {
    const more = furtherTrials(counts(100, 100), counts(8, 10), 0.05);
    expect(more?.baseline).toBe(0);
    expect(
      fisherExact(counts(100, 100), counts(Math.round(0.8 * (10 + more!.run)), 10 + more!.run)),
    ).toBeLessThanOrEqual(0.05);
    expect(furtherTrials(counts(4, 5), counts(8, 10), 0.05)).toBeNull();
  });
});

describe("sequential decision", () => {
  const plan = { maxTrials: 30, atLeast: 15, minRate: 0.5, confidence: 0.95 };
  test("stops on the interval, on curtailment, and at the cap", () => {
    expect(decideTrials(10, 10, plan)).toEqual({ stop: false });
    const stops = [
      [11, 11, "rate above minRate", true],
      [0, 11, "rate below minRate", false],
      [15, 20, "requirement met", true],
      [2, 18, "requirement out of reach", false],
    ] as const;
    for (const [passed, ran, reason, passes] of stops) {
      expect(decideTrials(passed, ran, plan)).toEqual({ stop: true, reason, passes });
    }
  });

  test("early stops are wrong at most 1 - confidence of the time (seeded simulation)", () => {
    // A true rate exactly at minRate is the hardest case for an early "above" stop.
    const random = seeded(7);
    let wrongAbove = 0;
    const runs = 2000;
    for (let run = 0; run < runs; run += 1) {
      let passed = 0;
      for (let n = 1; n <= plan.maxTrials; n += 1) {
        if (random() < 0.45) passed += 1;
        const decision = decideTrials(passed, n, plan);
        if (decision.stop) {
          if (decision.reason === "rate above minRate") wrongAbove += 1;
          break;
        }
      }
    }
    expect(wrongAbove / runs).toBeLessThanOrEqual(0.05);
  });
});

/** mulberry32: a small seeded generator, so simulations are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const binomial = (random: () => number, n: number, p: number): number => {
  let passed = 0;
  for (let trial = 0; trial < n; trial += 1) if (random() < p) passed += 1;
  return passed;
};

describe("verdicts over a suite", () => {
  test("200 unchanged tests with chance dips: the false-alarm rate at alpha 0.05 is at most 5%", () => {
    const random = seeded(2026);
    const simulations = 400;
    let anyRegressed = 0;
    let anyNaiveDrop = 0;
    let anyUncorrected = 0;
    for (let simulation = 0; simulation < simulations; simulation += 1) {
      const rows: PassComparison[] = Array.from({ length: 200 }, (_, index) => {
        const rate = [0.7, 0.8, 0.9, 0.95, 1][index % 5]!;
        return {
          test: `test ${index}`,
          file: "a.test.ts",
          agent: "test · m",
          baseline: counts(binomial(random, 10, rate), 10),
          run: counts(binomial(random, 10, rate), 10),
          flipped: false,
        };
      });
      const verdicts = passVerdicts(rows, 0.05);
      if (verdicts.some((row) => row.verdict === "regressed")) anyRegressed += 1;
      if (rows.some((row) => row.run.passed < row.baseline.passed)) anyNaiveDrop += 1;
      if (verdicts.some((row) => row.pValue <= 0.05 && row.run.rate < row.baseline.rate)) {
        anyUncorrected += 1;
      }
    }
    // The old rule (any drop) fails every such run; Fisher without Holm about a third of them.
    expect(anyNaiveDrop / simulations).toBe(1);
    expect(anyUncorrected / simulations).toBeGreaterThan(0.25);
    expect(anyRegressed / simulations).toBeLessThanOrEqual(0.05);
  });

  test("real drops among 200 tests are found: 20/20 → 12/20 regressed, 3/3 → 2/3 undecided", () => {
    const steady: PassComparison[] = Array.from({ length: 198 }, (_, index) => ({
      test: `steady ${index}`,
      file: "a.test.ts",
      agent: "test · m",
      baseline: counts(20, 20),
      run: counts(20, 20),
      flipped: false,
    }));
    const verdicts = passVerdicts(
      [
        ...steady,
        {
          test: "dropped",
          file: "a.test.ts",
          agent: "test · m",
          baseline: counts(40, 40),
          run: counts(12, 40),
          flipped: false,
        },
        {
          test: "one lost",
          file: "a.test.ts",
          agent: "test · m",
          baseline: counts(3, 3),
          run: counts(2, 3),
          flipped: false,
        },
      ],
      0.05,
    );
    expect(verdicts[0]).toMatchObject({ test: "dropped", verdict: "regressed" });
    expect(verdicts[0]!.adjustedPValue).toBeLessThan(0.05);
    const lost = verdicts.find((row) => row.test === "one lost")!;
    expect(lost.verdict).toBe("undecided");
    // At 0.05 / 200 per comparison, it needs many more trials than alone.
    expect(lost.furtherTrials!.run).toBeGreaterThan(11);
    expect(verdicts.filter((row) => row.verdict === "unchanged")).toHaveLength(198);
  });
});

describe("metric verdicts (latency today, judge scores the same way)", () => {
  const scores = { higherIsBetter: true, statistic: "p50" as const, ratio: 1, minChange: 0.1 };
  const row = (baseline: number[], run: number[]) => ({
    metric: "judge score",
    test: "t",
    agent: "a",
    baseline,
    run,
  });

  test("judge scores that fell by the median beyond chance are regressed; a rise is improved", () => {
    const high = [0.9, 0.85, 0.95, 0.92, 0.88, 0.91, 0.87, 0.93];
    const low = [0.5, 0.55, 0.45, 0.6, 0.52, 0.48, 0.58, 0.51];
    const [fell, rose] = metricVerdicts([row(high, low), row(low, high)], scores, 0.05);
    expect(fell).toMatchObject({
      verdict: "regressed",
      method: "Mann-Whitney U (two-sided, exact), Holm-corrected",
    });
    expect(fell!.adjustedPValue).toBeLessThan(0.05);
    expect(rose!.verdict).toBe("improved");
  });

  test("a shift under the practical threshold is unchanged however sure; too few samples are undecided", () => {
    const a = [0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97];
    const b = a.map((value) => value - 0.05);
    expect(metricVerdicts([row(a, b)], scores, 0.05)[0]!.verdict).toBe("unchanged");
    expect(metricVerdicts([row([0.9, 0.95], [0.4, 0.5])], scores, 0.05)[0]!.verdict).toBe(
      "undecided",
    );
    // Latency: higher is worse, p95 by default.
    const latency = { higherIsBetter: false, ratio: 1.5, minChange: 100 };
    const fast = [100, 110, 120, 105, 115, 102, 108, 111];
    const slow = fast.map((value) => value * 3);
    expect(metricVerdicts([row(fast, slow)], latency, 0.05)[0]).toMatchObject({
      verdict: "regressed",
      ratio: 3,
    });
  });
});
