import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * When a process started, in clock ticks since boot (Linux), so a process id that was
 * reused by an unrelated process is never mistaken for ours. Null where unknown.
 */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Appends one JSON line to a file of the run folder. */
export function appendRecord(dir: string, folder: string, record: unknown): void {
  appendFileSync(join(dir, folder, `${process.pid}.jsonl`), JSON.stringify(record) + "\n");
}
