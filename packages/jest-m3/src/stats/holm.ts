/**
 * Holm's correction for many comparisons at once: a suite of 200 tests compared at 5% each
 * would find about ten "changes" by chance alone; Holm keeps the chance of even one false
 * alarm in the whole run at the level asked for, and is never weaker than Bonferroni.
 */

/**
 * Holm-adjusted p-values, in the order given: compare each with the level (a test is
 * significant when its adjusted p-value is at most alpha). The smallest p-value is
 * multiplied by m, the next by m - 1, and so on, kept non-decreasing, capped at 1.
 *
 * @example
 * ```ts
 * holmAdjust([0.01, 0.04, 0.03]); // [0.03, 0.06, 0.06]
 * ```
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, index) => ({ p, index })).sort((x, y) => x.p - y.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, index }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[index] = running;
  });
  return adjusted;
}
