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
import { processStartTime, stillSame } from "@jest-m3/core/lean";

/** The ledgers of a run folder. */
export type Ledger = "processes" | "dirs" | "executions" | "trials" | "verdicts";

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

/** A ledger line that could not be read back: cut short (a power loss, a full disk) or not a record. */
export interface DamagedLine {
  /** The worker's file of the ledger. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** What is wrong with it. */
  readonly problem: string;
}

const reported = new Set<string>();

/**
 * Says once per process that a damaged line was skipped, naming the file and line: the rest
 * of the ledger is read, so one torn write never stops a run.
 */
export function reportDamagedLine(damaged: DamagedLine): void {
  const key = `${damaged.file}:${damaged.line}`;
  if (reported.has(key)) return;
  reported.add(key);
  console.warn(
    `jest-m3: skipped line ${damaged.line} of the ledger ${damaged.file}: ${damaged.problem} ` +
      "The rest of it was read; the file can be deleted once its run is over.",
  );
}

/** The records of one file of a ledger; a damaged line is skipped and handed to `damaged`. */
function recordsOf<T>(file: string, damaged: (line: DamagedLine) => void): T[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const records: T[] = [];
  lines.forEach((text, index) => {
    if (text === "") return;
    const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      // Every record ends with a newline; a last line without one was cut short.
      const cut = index === lines.length - 1;
      damaged({ file, line: index + 1, problem: `${cut ? "cut short" : "not JSON"}: ${shown}.` });
      return;
    }
    if (typeof record !== "object" || record === null || Array.isArray(record)) {
      damaged({ file, line: index + 1, problem: `not a record: ${shown}.` });
      return;
    }
    records.push(record as T);
  });
  return records;
}

/**
 * The records of a ledger: every worker's, or only the worker whose pid is given. A damaged
 * line is skipped and reported (by default once, on stderr), never fatal.
 */
export function readRecords<T>(
  dir: string,
  ledger: Ledger,
  worker?: number,
  damaged: (line: DamagedLine) => void = reportDamagedLine,
): T[] {
  const folder = join(dir, ledger);
  if (!existsSync(folder)) return [];
  const files =
    worker === undefined
      ? readdirSync(folder)
      : [`${worker}.jsonl`].filter((file) => existsSync(join(folder, file)));
  return files.flatMap((file) => recordsOf<T>(join(folder, file), damaged));
}

/**
 * Removes the temporary folders of a ledger that still exist (a kit that never closed:
 * its worker was killed). Only folders directly in the system temp folder are touched.
 * Returns the ones removed.
 */
export function removeLeftoverDirs(dir: string, worker?: number): string[] {
  const removed: string[] = [];
  for (const { path } of readRecords<{ path?: unknown }>(dir, "dirs", worker)) {
    if (typeof path !== "string" || path === "") continue; // a record without a folder
    const absolute = resolve(path);
    if (dirname(absolute) !== resolve(tmpdir()) || !existsSync(absolute)) continue;
    rmSync(absolute, { recursive: true, force: true });
    removed.push(absolute);
  }
  return removed;
}

/** The pids of the processes that wrote a run's `processes/` or `dirs/` ledger. */
export function ledgerWriters(dir: string): number[] {
  const pids = new Set<number>();
  for (const ledger of ["processes", "dirs"]) {
    const folder = join(dir, ledger);
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder)) {
      const pid = Number(file.replace(/\.jsonl$/, ""));
      if (Number.isInteger(pid) && pid > 0) pids.add(pid);
    }
  }
  return [...pids];
}

/** Sends `signal` to the process group `pid` leads (each kit child leads its own), else to `pid`. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * For a process about to end by a signal: synchronously stops every process the ledger of
 * each writer in `writers` recorded that is still the very one recorded (start time), with
 * its process group (an agent's own helpers, a relay's server): SIGTERM, up to `graceMs` for
 * them to go, then SIGKILL. Then removes those writers' temporary folders. Returns the pids
 * signalled and the folders removed.
 */
export function stopRecordedSync(
  dir: string,
  writers: readonly number[],
  graceMs = 300,
): { stopped: number[]; removed: string[] } {
  const recorded = writers.flatMap((writer) =>
    readRecords<{ pid: number; startTicks?: string | null }>(dir, "processes", writer).map(
      (entry) => ({ pid: entry.pid, startTime: entry.startTicks }),
    ),
  );
  const live = recorded.filter(stillSame);
  for (const { pid } of live) signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && live.some(stillSame)) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  // Processes first: one still running could write into a folder being removed. A group
  // whose leader went on SIGTERM may keep members: the group is signalled all the same.
  for (const { pid } of live) signalGroup(pid, "SIGKILL");
  return {
    stopped: live.map((entry) => entry.pid),
    removed: writers.flatMap((writer) => removeLeftoverDirs(dir, writer)),
  };
}
