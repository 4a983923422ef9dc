/**
 * The Wilson score interval of a pass rate, for trials (`trials()`) and the run report
 * alike. No Jest import: the reporter and the CLI use it outside test workers.
 */

/**
 * Wilson score interval (95%): honest about small samples, unlike passed/trials ± ...
 *
 * @example
 * ```ts
 * wilsonInterval(4, 5); // [0.38, 0.96] roughly
 * ```
 */
export function wilsonInterval(passed: number, trials: number): [number, number] {
  if (trials === 0) return [0, 1];
  const z = 1.959964;
  const p = passed / trials;
  const denominator = 1 + (z * z) / trials;
  const centre = (p + (z * z) / (2 * trials)) / denominator;
  const margin =
    (z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials))) / denominator;
  return [Math.max(0, centre - margin), Math.min(1, centre + margin)];
}
