/**
 * The run folder's ledgers: JSON lines that workers append (processes started, temporary
 * folders made, sessions finished) and that the reporter, the global teardown and the
 * worker guard read back. One file per worker process, so appends never interleave.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { processStartTime } from "@jest-m3/core/lean";

/** The ledgers of a run folder. */
export type Ledger = "processes" | "dirs" | "executions" | "trials";

/** When a process started (see core's `processStartTime`): tells a reused pid apart. */
export const processStartTicks = processStartTime;

/**
 * The run folder's list of the processes that write its ledgers (`<pid>.json`: pid and start
 * time), so Jest's main process can tell when one of them died (see run-guard.ts).
 */
export const WRITERS = "writers";

const ready = new Set<string>();

/**
 * Marks this process as having ended normally (a worker's "exit"), so that Jest's main
 * process does not take it for a worker that was killed. Only a writer is marked.
 */
export function markWriterExited(dir: string): void {
  const file = join(dir, WRITERS, `${process.pid}.json`);
  if (existsSync(file)) writeFileSync(join(dir, WRITERS, `${process.pid}.exited`), "");
}

/** Appends one record to this worker's file of a ledger. */
export function appendRecord(dir: string, ledger: Ledger, record: unknown): void {
  const folder = join(dir, ledger);
  if (!ready.has(folder)) {
    mkdirSync(folder, { recursive: true });
    ready.add(folder);
    const writers = join(dir, WRITERS);
    if (!ready.has(writers)) {
      mkdirSync(writers, { recursive: true });
      writeFileSync(
        join(writers, `${process.pid}.json`),
        JSON.stringify({ pid: process.pid, startTicks: processStartTime(process.pid) }),
      );
      ready.add(writers);
    }
  }
  appendFileSync(join(folder, `${process.pid}.jsonl`), JSON.stringify(record) + "\n");
}

/** The records of a ledger: every worker's, or only the worker whose pid is given. */
export function readRecords<T>(dir: string, ledger: Ledger, worker?: number): T[] {
  const folder = join(dir, ledger);
  if (!existsSync(folder)) return [];
  const files =
    worker === undefined
      ? readdirSync(folder)
      : [`${worker}.jsonl`].filter((file) => existsSync(join(folder, file)));
  return files.flatMap((file) =>
    readFileSync(join(folder, file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as T),
  );
}

/**
 * Removes the temporary folders of a ledger that still exist (a kit that never closed:
 * its worker was killed). Only folders directly in the system temp folder are touched.
 * Returns the ones removed.
 */
export function removeLeftoverDirs(dir: string, worker?: number): string[] {
  const removed: string[] = [];
  for (const { path } of readRecords<{ path: string }>(dir, "dirs", worker)) {
    const absolute = resolve(path);
    if (dirname(absolute) !== resolve(tmpdir()) || !existsSync(absolute)) continue;
    rmSync(absolute, { recursive: true, force: true });
    removed.push(absolute);
  }
  return removed;
}
