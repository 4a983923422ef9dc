/**
 * Retention of run folders: `<resultsDir>/runs` keeps the newest `keepRuns` runs
 * (m3.config.json, default {@link DEFAULT_KEEP_RUNS}); older run folders are removed after a
 * run is recorded. The history (history.sqlite) keeps every run. Never removed: the current
 * run, a run still in progress (its owner, Jest's main process, is alive and has not ended),
 * and a run whose report is being served (`jest-m3 show-report --serve` marks its folder,
 * `show-history --serve` the whole runs folder, while the serving process lives).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { processStartTime, stillSame } from "@jest-m3/core/lean";
import { RUN_OWNER, type RunOwner } from "./run-guard.js";

/** Run folders kept when m3.config.json sets no `keepRuns`. */
export const DEFAULT_KEEP_RUNS = 20;

/** A run folder's name as global setup and merge-reports make it: ISO time, then a suffix. */
const RUN_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]+$/;

const SERVING = /^\.serving-\d+\.json$/;

/** What a prune removed and what it kept though it was past the limit. */
export interface PruneResult {
  /** The run folders removed, oldest first. */
  readonly removed: readonly string[];
  /** Run folders past the limit kept, with why (current, in progress, being served). */
  readonly kept: ReadonlyArray<{ readonly run: string; readonly why: string }>;
}

/**
 * Marks `folder` (a run folder, or the runs folder for all of them) as served by this
 * process until the returned function is called or the process is gone.
 */
export function markServing(folder: string): () => void {
  const file = join(folder, `.serving-${process.pid}.json`);
  try {
    writeFileSync(
      file,
      JSON.stringify({ pid: process.pid, startTicks: processStartTime(process.pid) }),
    );
  } catch {
    return () => undefined; // a folder we cannot write to is one a prune cannot remove either
  }
  return () => rmSync(file, { force: true });
}

/** True when a live process marked `folder` as served (markers of dead ones are removed). */
function served(folder: string): boolean {
  let live = false;
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (!SERVING.test(name)) continue;
    const file = join(folder, name);
    try {
      const { pid, startTicks } = JSON.parse(readFileSync(file, "utf8")) as {
        pid: number;
        startTicks: string | null;
      };
      if (stillSame({ pid, startTime: startTicks })) live = true;
      else rmSync(file, { force: true });
    } catch {
      live = true; // being written: count it as live
    }
  }
  return live;
}

/** True when the run in `dir` is still running: its owner lives and has not ended. */
function inProgress(dir: string): boolean {
  const file = join(dir, RUN_OWNER);
  if (!existsSync(file)) return false;
  try {
    const owner = JSON.parse(readFileSync(file, "utf8")) as RunOwner;
    return owner.ended === undefined && stillSame({ pid: owner.pid, startTime: owner.startTicks });
  } catch {
    return true; // being written right now: leave it alone
  }
}

/**
 * Removes the run folders of `runsDir` beyond the newest `keep` (by run id, which starts
 * with the time the run started), except `current` and any run in progress or served.
 * Folders whose name is not a run id (yours, a merge's staging folder) are never touched.
 *
 * @example
 * ```ts
 * pruneRuns(".m3/runs", 20, process.env.M3_RUN_DIR ?? null).removed; // ["2026-05-01T…"]
 * ```
 */
export function pruneRuns(runsDir: string, keep: number, current: string | null): PruneResult {
  if (!existsSync(runsDir)) return { removed: [], kept: [] };
  if (served(runsDir)) return { removed: [], kept: [] }; // the history page links every run
  const runs = readdirSync(runsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && RUN_ID.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  const currentName = current ? basename(resolve(current)) : null;
  const removed: string[] = [];
  const kept: Array<{ run: string; why: string }> = [];
  for (const run of runs.slice(0, Math.max(0, runs.length - keep))) {
    const dir = join(runsDir, run);
    const why =
      run === currentName
        ? "the current run"
        : inProgress(dir)
          ? "in progress"
          : served(dir)
            ? "its report is being served"
            : null;
    if (why) {
      kept.push({ run, why });
      continue;
    }
    rmSync(dir, { recursive: true, force: true });
    removed.push(run);
  }
  return { removed, kept };
}
