/**
 * Guards a run from Jest's main process (global setup calls {@link guardRun}):
 *
 * - It sweeps what earlier runs left behind when they did not end cleanly (Jest killed with
 *   SIGKILL, a machine that lost power mid-run): their kits' temporary folders (a Codex home
 *   may hold a copy of the host's login) and any process they started that still runs.
 * - While the run lasts, it watches the run's workers: a worker killed mid-test (SIGKILL,
 *   the out-of-memory killer) cannot close its kits, and an agent that does not exit on the
 *   end of its stdin while a tool call is pending (Claude Code) would run on until the
 *   global teardown. Within a second of the worker's death, the processes its kits started
 *   are stopped (SIGTERM, then SIGKILL) and its kits' temporary folders removed.
 *
 * Each run folder names its owner, Jest's main process, by pid and start time
 * (`owner.json`, written here when a run starts). A run is stale only when that very process
 * is gone; a live run, even one in another terminal on the same results folder, is never
 * touched. Processes are signalled only if they are still the very ones recorded (core's
 * `signalIfSame`), never a process that reused an id.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive, processStartTime, signalIfSame, stillSame } from "@jest-m3/core/lean";
import {
  ledgerWriters,
  readRecords,
  removeLeftoverDirs,
  stopRecordedSync,
  WRITERS,
} from "../shared/run-ledger.js";
import { SHARED_SERVICES } from "./shared-services.js";

/** The run folder's record of the process that owns it. */
export const RUN_OWNER = "owner.json";
/** Written into a stale run's folder once it was swept: what was removed and stopped. */
export const RUN_SWEPT = "swept.json";

/** The process that owns a run: Jest's main process, by id and start time. */
export interface RunOwner {
  readonly pid: number;
  readonly startTicks: string | null;
  /** When its global teardown had stopped and removed what the run left: it needs no sweep. */
  readonly ended?: string;
}

/** What a sweep removed and stopped. */
export interface SweepResult {
  /** The run folders found stale and swept. */
  readonly runs: string[];
  /** The temporary folders removed. */
  readonly dirs: string[];
  /** The processes stopped (SIGKILL), by pid. */
  readonly processes: number[];
}

/** Records this process as the owner of `runDir`. */
export function recordRunOwner(runDir: string): void {
  const owner: RunOwner = { pid: process.pid, startTicks: processStartTime(process.pid) };
  writeFileSync(join(runDir, RUN_OWNER), JSON.stringify(owner));
}

/**
 * Records in `runDir`'s owner that the run ended cleaning up after itself (the global
 * teardown, once it stopped and removed what kits left), so that no later sweep marks it.
 */
export function recordRunEnded(runDir: string): void {
  const file = join(runDir, RUN_OWNER);
  let owner: RunOwner;
  try {
    owner = JSON.parse(readFileSync(file, "utf8")) as RunOwner;
  } catch {
    return; // a run folder without an owner (a test's own): nothing to record against
  }
  writeFileSync(file, JSON.stringify({ ...owner, ended: new Date().toISOString() }));
}

/**
 * True when the run in `runDir` is over without having cleaned up after itself: its owner is
 * gone and never recorded a clean end (its teardown did not run to its end). A folder written before runs named their owner counts as stale only when no process
 * that wrote its ledgers exists any more (without a start time, a live id is given the
 * benefit of the doubt).
 */
export function isStaleRun(runDir: string): boolean {
  const file = join(runDir, RUN_OWNER);
  if (existsSync(file)) {
    let owner: RunOwner;
    try {
      owner = JSON.parse(readFileSync(file, "utf8")) as RunOwner;
    } catch {
      return false; // being written right now, or damaged: leave it alone
    }
    if (owner.ended !== undefined) return false;
    return !stillSame({ pid: owner.pid, startTime: owner.startTicks });
  }
  const writers = ledgerWriters(runDir);
  return writers.length > 0 && !writers.some(isProcessAlive);
}

/**
 * Sweeps every stale run folder in `runsDir` other than `currentRun`, after recording this
 * process as `currentRun`'s owner; prints one line when it swept anything.
 *
 * @example
 * ```ts
 * sweepStaleRuns(join(config.resultsDir, "runs"), dir); // in globalSetup, once dir exists
 * ```
 */
export function sweepStaleRuns(runsDir: string, currentRun: string): SweepResult {
  recordRunOwner(currentRun);
  const result: SweepResult = { runs: [], dirs: [], processes: [] };
  const entries = existsSync(runsDir) ? readdirSync(runsDir) : [];
  for (const entry of entries) {
    const run = join(runsDir, entry);
    if (run === currentRun || existsSync(join(run, RUN_SWEPT))) continue;
    if (!existsSync(join(run, "dirs")) && !existsSync(join(run, "processes"))) continue;
    if (!isStaleRun(run)) continue;
    const started = readRecords<{ pid: number; startTicks?: string | null }>(run, "processes");
    // Processes first: a process still running could write into a folder being removed.
    const stopped = signalIfSame(
      started.map((child) => ({ pid: child.pid, startTime: child.startTicks })),
      "SIGKILL",
    );
    const removed = removeLeftoverDirs(run);
    writeFileSync(
      join(run, RUN_SWEPT),
      JSON.stringify({ at: new Date().toISOString(), by: process.pid, stopped, removed }),
    );
    if (stopped.length + removed.length === 0) continue;
    result.runs.push(entry);
    result.dirs.push(...removed);
    result.processes.push(...stopped);
  }
  if (result.runs.length > 0) {
    console.warn(
      `jest-m3: earlier run(s) ${result.runs.join(", ")} ended without cleaning up; removed ` +
        `${result.dirs.length} temporary folder(s) and stopped ${result.processes.length} process(es) they left.`,
    );
  }
  return result;
}

/** How often the run's workers are checked. */
const WATCH_INTERVAL_MS = 1000;

/**
 * Checks the run's workers every second until `stop()` (which looks once more): the
 * processes and folders of a worker that died without saying it ended normally (see
 * `markWriterExited`) are stopped and removed (see the module's comment), with one line
 * saying so. Jest's main process is never one of them (in-band runs have the signal guard of
 * the environment instead).
 */
export function watchWorkers(runDir: string): () => Promise<void> {
  const handled = new Set<number>();
  /** Processes sent SIGTERM at the last check, to SIGKILL at this one if still the same. */
  let stopping: { pid: number; startTime: string | null | undefined; worker: number }[] = [];
  const check = (): void => {
    signalIfSame(stopping, "SIGKILL");
    for (const worker of new Set(stopping.map((entry) => entry.worker))) {
      const removed = removeLeftoverDirs(runDir, worker);
      const stopped = stopping.filter((entry) => entry.worker === worker).length;
      console.warn(
        `jest-m3: a Jest worker (pid ${worker}) ended without closing its kits; stopped ${stopped} process(es) they started and removed ${removed.length} temporary folder(s).`,
      );
    }
    stopping = [];
    const folder = join(runDir, WRITERS);
    if (!existsSync(folder)) return;
    for (const file of readdirSync(folder)) {
      if (!file.endsWith(".json") || existsSync(join(folder, file.replace(/json$/, "exited"))))
        continue; // ended normally: whatever it left is the global teardown's to report
      let writer: RunOwner;
      try {
        writer = JSON.parse(readFileSync(join(folder, file), "utf8")) as RunOwner;
      } catch {
        continue; // being written
      }
      if (writer.pid === process.pid || handled.has(writer.pid)) continue;
      if (stillSame({ pid: writer.pid, startTime: writer.startTicks })) continue;
      handled.add(writer.pid);
      const started = readRecords<{ pid: number; startTicks?: string | null }>(
        runDir,
        "processes",
        writer.pid,
      ).map((child) => ({ pid: child.pid, startTime: child.startTicks, worker: writer.pid }));
      const alive = started.filter(stillSame);
      if (alive.length === 0) {
        // Ended normally, or its kits' processes ended with it: only folders may be left.
        const removed = removeLeftoverDirs(runDir, writer.pid);
        if (removed.length > 0) {
          console.warn(
            `jest-m3: a Jest worker (pid ${writer.pid}) ended without closing its kits; removed ${removed.length} temporary folder(s).`,
          );
        }
        continue;
      }
      signalIfSame(alive, "SIGTERM");
      stopping.push(...alive);
    }
  };
  const timer = setInterval(check, WATCH_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    // A worker killed just before the run ended: one last look, with a short grace.
    check();
    if (stopping.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      check();
    }
  };
}

/**
 * What global setup calls once the run folder exists: records the run's owner, sweeps stale
 * runs beside it, and watches the run's workers until global teardown.
 *
 * @example
 * ```ts
 * guardRun(join(config.resultsDir, "runs"), dir);
 * ```
 */
export function guardRun(runsDir: string, currentRun: string): void {
  sweepStaleRuns(runsDir, currentRun);
  const stop = watchWorkers(currentRun);
  SHARED_SERVICES.push(stop);
  guardRunSignals(currentRun);
}

/**
 * Jest's main process ends at once on SIGINT or SIGTERM outside watch mode, before its
 * global teardown: with workers, whatever their kits started and recorded would outlive the
 * run (a worker signalled with it cleans up after itself, one that was not cannot). On the
 * signal, every process the workers' ledgers recorded is stopped with its process group and
 * their folders removed, with one line saying so; then the process ends by the signal. This
 * process's own ledger is the environment's signal guard's (an in-band run).
 */
function guardRunSignals(runDir: string): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const name of ["SIGINT", "SIGTERM"] as const) process.removeListener(name, onSignal);
    try {
      const workers = ledgerWriters(runDir).filter((pid) => pid !== process.pid);
      const { stopped, removed } = stopRecordedSync(runDir, workers);
      if (stopped.length + removed.length > 0) {
        process.stderr.write(
          `\njest-m3: ${signal}: stopped ${stopped.length} process(es) the workers' kits started and removed ${removed.length} temporary folder(s).\n`,
        );
      }
    } catch {
      // The run folder is gone: nothing recorded to stop.
    }
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
