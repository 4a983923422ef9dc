/**
 * Fisher's exact test on two pass counts: is the pass rate of one sample different from the
 * other's, beyond what chance gives? Exact at any sample size, so it is honest about the
 * three or five trials agent tests usually have. No Jest import: the CLI uses it.
 */

const logFactorials: number[] = [0];

/**
 * ln(n!), exact to floating point: a running sum of logarithms, kept between calls.
 *
 * @example
 * ```ts
 * Math.exp(logFactorial(5)); // 120 (to rounding)
 * ```
 */
export function logFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`logFactorial(${n}): n must be ≥ 0`);
  for (let k = logFactorials.length; k <= n; k += 1) {
    logFactorials.push(logFactorials[k - 1]! + Math.log(k));
  }
  return logFactorials[n]!;
}

/** ln C(n, k). */
export function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/** Two pass counts: `passed` of `trials` on each side. */
export interface PassCounts {
  readonly passed: number;
  readonly trials: number;
}

function checked(counts: PassCounts, side: string): void {
  const { passed, trials } = counts;
  if (!Number.isInteger(trials) || trials < 0 || !Number.isInteger(passed) || passed < 0) {
    throw new RangeError(`fisherExact: ${side} counts must be whole numbers ≥ 0`);
  }
  if (passed > trials) throw new RangeError(`fisherExact: ${side} passed more than it ran`);
}

/**
 * The two-sided p-value of Fisher's exact test for the 2×2 table of passes and failures of
 * `a` and `b`: the probability, if both had the same pass rate, of a split of the passes at
 * least as uneven as the one observed (tables no likelier than the observed one, given the
 * margins; the same rule as R's `fisher.test`).
 *
 * @example
 * ```ts
 * fisherExact({ passed: 3, trials: 4 }, { passed: 1, trials: 4 }); // 0.4857 (the tea-tasting table)
 * fisherExact({ passed: 20, trials: 20 }, { passed: 12, trials: 20 }); // 0.0033
 * ```
 */
export function fisherExact(a: PassCounts, b: PassCounts): number {
  checked(a, "the first side's");
  checked(b, "the second side's");
  const total = a.trials + b.trials;
  const passes = a.passed + b.passed;
  if (a.trials === 0 || b.trials === 0 || passes === 0 || passes === total) return 1;
  const base = logChoose(total, passes);
  // P(the first side has k of the passes) under equal rates: hypergeometric.
  const logP = (k: number): number =>
    logChoose(a.trials, k) + logChoose(b.trials, passes - k) - base;
  const observed = logP(a.passed);
  // Relative tolerance as R's: tables equally likely up to rounding count as "as extreme".
  const limit = observed + Math.log1p(1e-7);
  const low = Math.max(0, passes - b.trials);
  const high = Math.min(a.trials, passes);
  // The hypergeometric is unimodal: walk out from its mode each way, adding the tables no
  // likelier than the observed one, until what is left is too small to matter (so large
  // samples cost about the square root of their size, not their size).
  const mode = Math.min(
    high,
    Math.max(low, Math.floor(((a.trials + 1) * (passes + 1)) / (total + 2))),
  );
  let p = 0;
  const walk = (from: number, step: number): void => {
    for (let k = from; k >= low && k <= high; k += step) {
      const value = logP(k);
      if (value > limit) continue;
      const term = Math.exp(value);
      p += term;
      if (term < p * 1e-17) break;
    }
  };
  walk(mode, -1);
  walk(mode + 1, 1);
  return Math.min(1, p);
}
