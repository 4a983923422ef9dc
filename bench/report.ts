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

/** A cold session through the kit against its bare driver: the time target of issue 36. */
export const SESSION_TIME_TARGET = 1.05;
/** The kit's memory per session over the bare driver (the memory benchmark's target). */
export const SESSION_RSS_TARGET_MB = 10;

/**
 * The verdict line of a cold-session benchmark: the kit's session time over the bare
 * driver's (medians) against {@link SESSION_TIME_TARGET}, and the summed peak RSS of the
 * agent and everything below it, kit − bare, against {@link SESSION_RSS_TARGET_MB}.
 */
export function sessionVerdict(
  title: string,
  timeMs: { readonly bare: number; readonly kit: number },
  treeMb: { readonly bare: number; readonly kit: number },
): void {
  const ratio = timeMs.kit / timeMs.bare;
  const over = treeMb.kit - treeMb.bare;
  console.log(
    `  ${title}: kit / bare session time ${ratio.toFixed(3)}×; target ≤ ${SESSION_TIME_TARGET}×: ${ratio <= SESSION_TIME_TARGET ? "met" : "NOT met"}; tree RSS kit − bare ${over.toFixed(1)} MB, target ≤ ${SESSION_RSS_TARGET_MB} MB: ${over <= SESSION_RSS_TARGET_MB ? "met" : "NOT met"}`,
  );
}
