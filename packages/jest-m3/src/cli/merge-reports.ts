/**
 * `jest-m3 merge-reports <run folders...>`: the run folders of a sharded run's shards
 * (`jest --shard=i/n`, each with its blob.json) made into one run: one report.json and
 * report.html, and one entry in the history, as an unsharded run of the same tests gives.
 * A merge knows how many shards its run had (each blob records its `--shard=k/n`) and
 * refuses one with shards missing, naming them, unless `--allow-partial` is given: then the
 * run is marked partial (report.json `partial`, the page, the history) and counts as failed.
 * Exit code: 0 merged and the run passed, 1 merged and the run failed (a partial merge
 * included), 2 nothing merged (shards missing without `--allow-partial`, a usage mistake, a
 * missing, foreign or malformed blob, a broken history, a folder that cannot be written):
 * then nothing is written either.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { M3Error } from "@jest-m3/core";
import {
  BLOB_FILE,
  jsonReport,
  mergeBlobs,
  missingShards,
  reportOfBlob,
  ShardsMissing,
  writeReports,
} from "../report/blob.js";
import { readBlob } from "../report/read-blob.js";
import { secretValuesOf } from "../shared/redact.js";
import { HISTORY_FILE } from "../store/history.js";
import { recordRunInStore } from "../store/record.js";
import { runsFolder } from "./show-report.js";
import { loadConfig } from "../shared/config.js";
import { pruneRuns } from "../main/run-retention.js";
import type { CliIo } from "./io.js";
import { appendJobSummary } from "../report/ci-summary.js";

/** The options of `jest-m3 merge-reports`. */
export interface MergeArgs {
  readonly folders: readonly string[];
  /** The results folder the merged run goes to (default: resultsDir of m3.config.json). */
  readonly results?: string;
  /** Record the merged run in the history (default true). */
  readonly history: boolean;
  /**
   * Merge even with shards missing (default false: refused): the run is then marked partial
   * in report.json, report.html and the history, counts as failed, and `jest-m3 diff` never
   * takes it as a baseline by itself.
   */
  readonly allowPartial: boolean;
}

/** Parses `jest-m3 merge-reports`'s arguments; a string is a usage mistake. */
export function parseMergeArgs(args: readonly string[]): MergeArgs | string {
  const folders: string[] = [];
  let results: string | undefined;
  let history = true;
  let allowPartial = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--results") {
      const given = args[++index];
      if (!given) return "--results needs a folder";
      results = given;
    } else if (arg === "--no-history") history = false;
    else if (arg === "--allow-partial") allowPartial = true;
    else if (arg.startsWith("-")) return `unknown option ${arg}`;
    else folders.push(arg);
  }
  if (folders.length === 0) return "give the run folder of each shard (.m3/runs/<run-id>)";
  return { folders, ...(results ? { results } : {}), history, allowPartial };
}

/**
 * Runs `jest-m3 merge-reports`; returns the exit code. The merged run is written into a
 * staging folder beside the runs and renamed to its run id only once everything (reports,
 * blob, history entry) succeeded: a refused or failed merge leaves no run folder behind.
 */
export async function runMergeReports(args: MergeArgs, io: CliIo): Promise<number> {
  let staging: string | undefined;
  let createdRuns: string | undefined;
  try {
    const blobs = args.folders.map((folder) => readBlob(resolve(io.cwd, folder)));
    const missing = missingShards(blobs);
    const merged = mergeBlobs(blobs);
    const count = merged.shards?.count ?? 1;
    if (missing.length > 0 && !args.allowPartial) {
      throw new ShardsMissing(
        `shard(s) ${missing.join(", ")} of ${count} missing (given: ${merged.shards?.merged.join(", ") ?? "none"}): a merge of some shards is not the run. Give every shard's run folder, or merge what is there with --allow-partial (the run is then marked partial, counts as failed, and jest-m3 diff takes no baseline from it).`,
        missing,
        count,
      );
    }
    const runs = runsFolder(io.cwd, args.results);
    const dir = join(runs, merged.runId!);
    createdRuns = mkdirSync(runs, { recursive: true });
    // Named with a dot: show-report never lists it as a run.
    staging = mkdtempSync(join(runs, `.merging-${merged.runId!}-`));
    writeFileSync(join(staging, BLOB_FILE), JSON.stringify(merged));
    const report = reportOfBlob(merged, secretValuesOf());
    writeReports(
      staging,
      report,
      jsonReport(
        report,
        merged.run,
        blobs.map((blob) => ({ runId: blob.runId, index: blob.shard?.index ?? 1 })),
      ),
    );
    const store = join(runs, "..", HISTORY_FILE);
    if (args.history) await recordRunInStore(store, report, merged.run);
    renameSync(staging, dir);
    staging = undefined;
    createdRuns = undefined;
    io.out(
      `Merged ${blobs.length} shard(s) into run ${merged.runId}: ${report.totals.tests} tests, ${report.totals.passed} passed, ${report.totals.failed} failed.\n` +
        `${join(dir, "report.html")}\n`,
    );
    if (missing.length > 0) {
      io.err(
        `jest-m3 merge-reports: partial run (--allow-partial): shard(s) ${missing.join(", ")} of ${count} missing; the counts above are of the merged shards only, and the merged run counts as failed.\n`,
      );
    }
    if (args.history) io.out(`Recorded in ${store} (npx jest-m3 diff)\n`);
    try {
      const keep = loadConfig(io.cwd).keepRuns;
      const { removed } = pruneRuns(runs, keep, dir);
      if (removed.length > 0) {
        io.out(
          `Removed ${removed.length} old run folder(s), keeping the newest ${keep} ("keepRuns" in m3.config.json)\n`,
        );
      }
    } catch (error) {
      io.err(`jest-m3 merge-reports: old run folders were NOT pruned: ${describeFailure(error)}\n`);
    }
    // In GitHub Actions: the merged run's job summary, with the diff against the previous run.
    io.err(
      await appendJobSummary(
        report,
        args.history ? store : null,
        "Merged with --no-history: no diff.",
      ),
    );
    return report.success ? 0 : 1;
  } catch (error) {
    if (staging) rmSync(staging, { recursive: true, force: true });
    if (createdRuns) rmSync(createdRuns, { recursive: true, force: true });
    io.err(`jest-m3 merge-reports: ${describeFailure(error)} Nothing was merged.\n`);
    return 2;
  }
}

/**
 * A failed merge in one line: jest-m3's own errors by message and code, anything else
 * (a folder that cannot be written, say) by its message and Node's code, never a stack.
 */
function describeFailure(error: unknown): string {
  if (error instanceof M3Error) return `${error.message} [${error.code}]`;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `${error.message}${code ? ` [${code}]` : ""}`;
  }
  return String(error);
}
