/**
 * The Mann-Whitney U test (Wilcoxon rank-sum): do the values of one sample tend to be larger
 * than the other's? It uses ranks only, so a few very slow turns or odd scores do not decide
 * it, and it assumes no bell curve: suited to latencies and judge scores alike.
 */

/** The outcome of a Mann-Whitney U test. */
export interface MannWhitneyResult {
  /** U of the first sample: the number of (a, b) pairs with a > b, ties counting half. */
  readonly u: number;
  /** Two-sided p-value. */
  readonly p: number;
  /**
   * How p was computed: `exact` (the exact distribution of U; small samples without ties)
   * or `normal` (the normal approximation with tie and continuity corrections).
   */
  readonly method: "exact" | "normal";
}

/**
 * The standard normal distribution's upper tail, P(Z > z): erf's Taylor series below
 * z = 3√2 (absolute error about 1e-12), erfc's continued fraction above (relative).
 */
export function normalUpperTail(z: number): number {
  if (z < 0) return 1 - normalUpperTail(-z);
  const x = z / Math.SQRT2;
  if (x < 3) {
    // erf by its Taylor series: converges fast for x < 3.
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n += 1) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 0.5 * (1 - (2 / Math.sqrt(Math.PI)) * sum);
  }
  // erfc by its continued fraction (Lentz), accurate for large x.
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 300; n += 1) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? 1e-300 : 1 / d;
    c = x + a / c;
    if (c === 0) c = 1e-300;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return (0.5 * Math.exp(-x * x)) / (f * Math.sqrt(Math.PI));
}

/** Frequencies of U for samples of m and n without ties: the Gaussian binomial's coefficients. */
function exactUCounts(m: number, n: number): number[] {
  // [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i); coefficient u = #arrangements with U = u.
  let poly = [1];
  for (let i = 1; i <= m; i += 1) {
    const times = new Array<number>(poly.length + n + i).fill(0);
    poly.forEach((value, k) => {
      times[k]! += value;
      times[k + n + i]! -= value;
    });
    // Dividing by (1 - q^i) is a running sum with stride i.
    for (let k = i; k < times.length; k += 1) times[k]! += times[k - i]!;
    poly = times.slice(0, m * n + 1);
  }
  return poly;
}

/**
 * Two-sided Mann-Whitney U test of samples `a` and `b` (each at least one value).
 *
 * @example
 * ```ts
 * mannWhitney([1, 2, 3, 4], [5, 6, 7, 8]); // { u: 0, p: 0.0286, method: "exact" }
 * ```
 */
export function mannWhitney(a: readonly number[], b: readonly number[]): MannWhitneyResult {
  const m = a.length;
  const n = b.length;
  if (m === 0 || n === 0) return { u: (m * n) / 2, p: 1, method: "exact" };
  const all = [
    ...a.map((value) => ({ value, first: true })),
    ...b.map((value) => ({ value, first: false })),
  ].sort((x, y) => x.value - y.value);
  // Mid-ranks for ties; the tie sizes feed the variance's correction.
  let rankSum = 0;
  let tieTerm = 0;
  for (let start = 0; start < all.length;) {
    let end = start;
    while (end + 1 < all.length && all[end + 1]!.value === all[start]!.value) end += 1;
    const rank = (start + end) / 2 + 1;
    const size = end - start + 1;
    tieTerm += size ** 3 - size;
    for (let k = start; k <= end; k += 1) if (all[k]!.first) rankSum += rank;
    start = end + 1;
  }
  const u = rankSum - (m * (m + 1)) / 2;
  const mean = (m * n) / 2;
  if (tieTerm === 0 && m + n <= 60) {
    const counts = exactUCounts(m, n);
    const total = counts.reduce((sum, value) => sum + value, 0);
    const lower = counts.slice(0, Math.floor(u) + 1).reduce((sum, value) => sum + value, 0);
    const upper = counts.slice(Math.ceil(u)).reduce((sum, value) => sum + value, 0);
    return { u, p: Math.min(1, (2 * Math.min(lower, upper)) / total), method: "exact" };
  }
  const N = m + n;
  const variance = ((m * n) / 12) * (N + 1 - tieTerm / (N * (N - 1)));
  if (variance <= 0) return { u, p: 1, method: "normal" };
  const z = Math.max(0, Math.abs(u - mean) - 0.5) / Math.sqrt(variance);
  return { u, p: Math.min(1, 2 * normalUpperTail(z)), method: "normal" };
}
