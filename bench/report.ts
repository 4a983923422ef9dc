/** Prints benchmark figures as aligned rows, and the ratio of each row to the baseline. */
export interface Measurement {
  readonly label: string;
  /** Higher is better (e.g. calls per second). */
  readonly value: number;
  readonly unit: string;
}

export function printComparison(
  title: string,
  baseline: Measurement,
  candidates: readonly Measurement[],
): void {
  console.log(`\n${title}`);
  const rows = [baseline, ...candidates];
  const width = Math.max(...rows.map((row) => row.label.length));
  for (const row of rows) {
    const ratio =
      row === baseline ? "baseline" : `${(row.value / baseline.value).toFixed(3)} × baseline`;
    console.log(
      `  ${row.label.padEnd(width)}  ${row.value.toFixed(1).padStart(10)} ${row.unit}  ${ratio}`,
    );
  }
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
