/**
 * `jest-m3 merge-reports <run folders...>`: the run folders of a sharded run's shards
 * (`jest --shard=i/n`, each with its blob.json) made into one run: one report.json and
 * report.html, and one entry in the history, as an unsharded run of the same tests gives.
 * Exit code: 0 merged and the run passed, 1 merged and the run failed (or shards are
 * missing), 2 nothing merged (a usage mistake, a missing or foreign blob, a broken history).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { M3Error } from "@jest-m3/core";
import {
  BLOB_FILE,
  jsonReport,
  mergeBlobs,
  missingShards,
  readBlob,
  reportOfBlob,
  writeReports,
} from "../report/blob.js";
import { secretValuesOf } from "../report/redact.js";
import { HISTORY_FILE } from "../store/history.js";
import { recordRunInStore } from "../store/record.js";
import { runsFolder } from "./show-report.js";
import type { CliIo } from "./io.js";

/** The options of `jest-m3 merge-reports`. */
export interface MergeArgs {
  readonly folders: readonly string[];
  /** The results folder the merged run goes to (default: resultsDir of m3.config.json). */
  readonly results?: string;
  /** Record the merged run in the history (default true). */
  readonly history: boolean;
}

/** Parses `jest-m3 merge-reports`'s arguments; a string is a usage mistake. */
export function parseMergeArgs(args: readonly string[]): MergeArgs | string {
  const folders: string[] = [];
  let results: string | undefined;
  let history = true;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--results") {
      const given = args[++index];
      if (!given) return "--results needs a folder";
      results = given;
    } else if (arg === "--no-history") history = false;
    else if (arg.startsWith("-")) return `unknown option ${arg}`;
    else folders.push(arg);
  }
  if (folders.length === 0) return "give the run folder of each shard (.m3/runs/<run-id>)";
  return { folders, ...(results ? { results } : {}), history };
}

/** Runs `jest-m3 merge-reports`; returns the exit code. */
export async function runMergeReports(args: MergeArgs, io: CliIo): Promise<number> {
  try {
    const blobs = args.folders.map((folder) => readBlob(resolve(io.cwd, folder)));
    const missing = missingShards(blobs);
    const merged = mergeBlobs(blobs);
    const runs = runsFolder(io.cwd, args.results);
    const dir = join(runs, merged.runId!);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, BLOB_FILE), JSON.stringify(merged));
    const report = reportOfBlob(merged, secretValuesOf());
    writeReports(
      dir,
      report,
      jsonReport(
        report,
        merged.run,
        blobs.map((blob) => ({ runId: blob.runId, index: blob.shard?.index ?? 1 })),
      ),
    );
    io.out(
      `Merged ${blobs.length} shard(s) into run ${merged.runId}: ${report.totals.tests} tests, ${report.totals.passed} passed, ${report.totals.failed} failed.\n` +
        `${join(dir, "report.html")}\n`,
    );
    if (missing.length > 0) {
      io.err(
        `jest-m3 merge-reports: shard(s) ${missing.join(", ")} of ${blobs[0]?.shard?.count ?? 1} missing: the merged run counts as failed.\n`,
      );
    }
    if (args.history) {
      const store = join(runs, "..", HISTORY_FILE);
      await recordRunInStore(store, report, merged.run);
      io.out(`Recorded in ${store} (npx jest-m3 diff)\n`);
    }
    return report.success ? 0 : 1;
  } catch (error) {
    if (error instanceof M3Error) {
      io.err(`jest-m3 merge-reports: ${error.message} [${error.code}]\n`);
      return 2;
    }
    throw error;
  }
}
