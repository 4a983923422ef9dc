/**
 * A run's blob: everything its report is made of (Jest's results, the sessions, the trials,
 * run.json), as one JSON file in the run folder. A sharded run (`jest --shard=i/n`) writes
 * one per shard; `npx jest-m3 merge-reports` merges them into one report and one history
 * entry, the same as an unsharded run's.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { M3Error, SecretScrubber } from "@jest-m3/core/lean";
import type { TranscriptRecord } from "../shared/transcript.js";
import {
  buildRunReport,
  failedTrialsOf,
  type JestAssertion,
  type JestFileResult,
  type ReportInput,
  type RunFile,
} from "./build.js";
import { renderReportHtml } from "./html.js";
import type { RunReport } from "./model.js";
import { scrubText, type SecretValue } from "../shared/redact.js";
import type { AgentStats } from "./stats.js";
import { trimVerdict, type VerdictRecord } from "./verdicts.js";
import {
  describeSelection,
  selectionKey,
  type MergedShards,
  type RunSelection,
} from "../shared/run-selection.js";

/** The file name of a run's blob in its run folder. */
export const BLOB_FILE = "blob.json";

/** What a blob holds. Paths are absolute on the machine that ran the shard (see `rootDir`). */
export interface RunBlob {
  readonly kind: "jest-m3-blob";
  /** Version of this shape. */
  readonly schema: 1;
  readonly runId: string | null;
  /** Jest's root folder on the machine that ran it: test paths are rebased from it. */
  readonly rootDir: string;
  /** `{ index, count }` for `jest --shard=index/count`; null when not sharded. */
  readonly shard: { readonly index: number; readonly count: number } | null;
  readonly run: RunFile | null;
  readonly files: readonly JestFileResult[];
  readonly sessions: readonly TranscriptRecord[];
  readonly trials: NonNullable<ReportInput["trials"]>;
  /** The judge verdicts of the run (`toPassJudge`); an older blob without them reads as none. */
  readonly verdicts?: readonly VerdictRecord[];
  /** What the run selected of the suite (see `RunSelection`); an older blob has none. */
  readonly selection?: RunSelection | null;
  /** A merged run's shards: which of how many were merged, and which are missing. */
  readonly shards?: MergedShards | null;
  readonly success: boolean;
  readonly startedAt: number | null;
  readonly finishedAt: number;
}

/** A blob could not be read: missing, not a jest-m3 blob, or of shards that do not fit. */
export class BlobInvalid extends M3Error {
  override readonly code = "M3_BLOB_INVALID";
}

/** A merge was given some shards of a run, not all (`missing`, 1-based, of `count`). */
export class ShardsMissing extends M3Error {
  override readonly code = "M3_SHARDS_MISSING";
  constructor(
    message: string,
    readonly missing: readonly number[],
    readonly count: number,
  ) {
    super(message);
  }
}

/** Only the fields a report reads, names and failure messages scrubbed: a blob may be uploaded. */
function trimFile(file: JestFileResult, secrets: readonly SecretValue[]): JestFileResult {
  const assertion = (entry: JestAssertion): JestAssertion => ({
    fullName: scrubText(entry.fullName, secrets),
    title: scrubText(entry.title, secrets),
    status: entry.status,
    duration: entry.duration ?? null,
    failureMessages: (entry.failureMessages ?? []).map((message) => scrubText(message, secrets)),
  });
  return {
    testFilePath: file.testFilePath,
    testResults: file.testResults.map(assertion),
    testExecError: file.testExecError
      ? { message: scrubText(file.testExecError.message ?? "", secrets) }
      : null,
    failureMessage: file.failureMessage ? scrubText(file.failureMessage, secrets) : null,
  };
}

/** Makes a run's blob from what the reporter collected. */
export function makeBlob(
  input: Omit<RunBlob, "kind" | "schema" | "files" | "runId"> & {
    readonly files: readonly JestFileResult[];
    readonly secrets: readonly SecretValue[];
  },
): RunBlob {
  const { secrets, files, trials, sessions, verdicts, ...rest } = input;
  return {
    kind: "jest-m3-blob",
    schema: 1,
    runId: input.run?.runId ?? null,
    ...rest,
    files: files.map((file) => trimFile(file, secrets)),
    // Whole: a worker scrubbed what it knew, by the fields it scrubs; a secret of this
    // process's environment may still sit in any of them (a tool's description, a name).
    sessions: new SecretScrubber(secrets).scrubValue(sessions),
    // The counts only: the ledger's verdicts hold failure texts the report does not use.
    trials: trials.map((record) => ({
      testPath: record.testPath,
      testName: scrubText(record.testName, secrets),
      agent: record.agent ?? null,
      trials: record.trials,
      passed: record.passed,
      interval: record.interval,
      need: record.need,
      ...(failedTrialsOf(record) ? { failedTrials: failedTrialsOf(record) ?? [] } : {}),
    })),
    verdicts: new SecretScrubber(secrets).scrubValue((verdicts ?? []).map(trimVerdict)),
  };
}

/** One row of report.json's `stats`: a test on an agent. */
export interface StatsRow extends AgentStats {
  readonly test: { readonly id: string; readonly file: string; readonly fullName: string };
}

/** report.json: the run's totals, every session, the failed tests, and the statistics. */
export interface JsonReport {
  readonly run: RunFile | null;
  readonly runId: string | null;
  readonly tests: { readonly total: number; readonly passed: number; readonly failed: number };
  readonly success: boolean;
  readonly sessions: readonly TranscriptRecord[];
  readonly failedWithTranscripts: ReadonlyArray<{
    readonly test: string;
    readonly transcripts: readonly TranscriptRecord[];
  }>;
  /** Per test and agent: trials, pass rate, interval, turn latency, tool calls. */
  readonly stats: readonly StatsRow[];
  /** Every judge verdict of the run, with the test it was given in. */
  readonly verdicts: ReadonlyArray<
    NonNullable<RunReport["tests"][number]["verdicts"]>[number] & {
      readonly test: { readonly id: string; readonly file: string; readonly fullName: string };
    }
  >;
  /** The shards merged into this report (merge-reports), else absent. */
  readonly shards?: ReadonlyArray<{ readonly runId: string | null; readonly index: number }>;
  /**
   * True for a merge with shards missing (`merge-reports --allow-partial`): its counts are
   * of the merged shards only, and `missingShards` says which are not there.
   */
  readonly partial: boolean;
  /** A partial run's missing shards, `{ count, missing }` (1-based); absent otherwise. */
  readonly missingShards?: { readonly count: number; readonly missing: readonly number[] };
}

/** The rows of report.json's `stats`, in the order of the report's tests. */
export function statsRows(report: RunReport): StatsRow[] {
  return report.tests.flatMap((test) =>
    (test.stats ?? []).map((stats) => ({
      test: { id: test.id, file: test.file, fullName: test.fullName },
      ...stats,
    })),
  );
}

/** The JSON report of a built run report. */
export function jsonReport(
  report: RunReport,
  run: RunFile | null,
  shards?: JsonReport["shards"],
): JsonReport {
  return {
    run,
    runId: report.runId,
    tests: {
      total: report.tests.filter((test) => !test.fullName.startsWith("(")).length,
      passed: report.tests.filter(
        (test) => test.verdict === "passed" && !test.fullName.startsWith("("),
      ).length,
      failed: report.tests.filter(
        (test) => test.verdict === "failed" && !test.fullName.startsWith("("),
      ).length,
    },
    success: report.success,
    sessions: report.tests.flatMap((test) => test.sessions),
    failedWithTranscripts: report.tests
      .filter((test) => test.verdict === "failed" && test.sessions.length > 0)
      .map((test) => ({ test: test.fullName, transcripts: test.sessions })),
    stats: statsRows(report),
    verdicts: report.tests.flatMap((test) =>
      (test.verdicts ?? []).map((verdict) => ({
        test: { id: test.id, file: test.file, fullName: test.fullName },
        ...verdict,
      })),
    ),
    ...(shards ? { shards } : {}),
    partial: (report.shards?.missing.length ?? 0) > 0,
    ...(report.shards && report.shards.missing.length > 0
      ? { missingShards: { count: report.shards.count, missing: report.shards.missing } }
      : {}),
  };
}

/** Builds a blob's report. */
export function reportOfBlob(blob: RunBlob, secrets: readonly SecretValue[]): RunReport {
  const report = buildRunReport({
    rootDir: blob.rootDir,
    run: blob.run,
    files: [...blob.files].sort((a, b) => a.testFilePath.localeCompare(b.testFilePath)),
    sessions: blob.sessions,
    success: blob.success,
    startedAt: blob.startedAt,
    finishedAt: blob.finishedAt,
    secrets,
    trials: blob.trials,
    verdicts: blob.verdicts ?? [],
  });
  return { ...report, selection: blob.selection ?? null, shards: blob.shards ?? null };
}

/** Writes report.json and report.html of `report` into `dir`. */
export function writeReports(dir: string, report: RunReport, json: JsonReport): void {
  writeFileSync(join(dir, "report.json"), JSON.stringify(json, null, 2));
  writeFileSync(join(dir, "report.html"), renderReportHtml(report));
}

/** `path` rebased from `from` to `to` when it lies under `from`. */
function rebase(path: string, from: string, to: string): string {
  const rel = relative(from, path);
  if (rel.startsWith("..") || isAbsolute(rel)) return path;
  return join(to, rel);
}

/** Text with every occurrence of the folder `from` replaced by `to` (stack frames). */
function rebaseText(text: string, from: string, to: string): string {
  if (from === to) return text;
  const withSep = from.endsWith(sep) ? from : `${from}${sep}`;
  return text.split(withSep).join(to.endsWith(sep) ? to : `${to}${sep}`);
}

/** A fresh run id, in global setup's format. */
export function newRunId(): string {
  return `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
}

/**
 * The blob of the whole run, from the blobs of its shards: tests, sessions and trials of
 * every shard (test paths rebased onto the first shard's root), success only when every
 * shard succeeded, the earliest start and latest finish.
 *
 * @throws BlobInvalid for no blobs, the same shard twice, shards of different sizes, or
 * shards of different selections (`jest --shard` over other files).
 */
export function mergeBlobs(blobs: readonly RunBlob[], runId: string = newRunId()): RunBlob {
  const first = blobs[0];
  if (!first) throw new BlobInvalid("merge-reports needs at least one blob folder.");
  const counts = new Set(blobs.map((blob) => blob.shard?.count ?? 1));
  if (counts.size > 1) {
    throw new BlobInvalid(
      `The blobs are of runs split differently (--shard=…/${[...counts].join(", …/")}): merge the shards of one run.`,
    );
  }
  const seen = new Set<number>();
  for (const blob of blobs) {
    const index = blob.shard?.index ?? 1;
    if (seen.has(index)) {
      throw new BlobInvalid(
        `Shard ${index} is given twice (run ${blob.runId ?? "?"}): give each shard's folder once.`,
      );
    }
    seen.add(index);
  }
  const selections = new Map(
    blobs.map((blob) => [blob.selection ? selectionKey(blob.selection) : "", blob.selection]),
  );
  if (selections.size > 1) {
    throw new BlobInvalid(
      `The shards ran different selections of the suite (${[...selections.values()].map((selection) => (selection ? describeSelection(selection) : "unknown")).join("; ")}): merge the shards of one run, all started with the same arguments but --shard.`,
    );
  }
  const count = [...counts][0] ?? 1;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  const root = first.rootDir;
  const files: JestFileResult[] = [];
  const sessions: TranscriptRecord[] = [];
  const trials: Array<RunBlob["trials"][number]> = [];
  const verdicts: VerdictRecord[] = [];
  const ordered = [...blobs].sort((a, b) => (a.shard?.index ?? 1) - (b.shard?.index ?? 1));
  for (const blob of ordered) {
    const path = (p: string): string => rebase(p, blob.rootDir, root);
    const text = (t: string): string => rebaseText(t, blob.rootDir, root);
    for (const file of blob.files) {
      files.push({
        ...file,
        testFilePath: path(file.testFilePath),
        testResults: file.testResults.map((entry) => ({
          ...entry,
          failureMessages: (entry.failureMessages ?? []).map(text),
        })),
        failureMessage: file.failureMessage ? text(file.failureMessage) : null,
      });
    }
    sessions.push(
      ...blob.sessions.map((session) => ({ ...session, testPath: path(session.testPath) })),
    );
    trials.push(...blob.trials.map((record) => ({ ...record, testPath: path(record.testPath) })));
    verdicts.push(
      ...(blob.verdicts ?? []).map((record) => ({ ...record, testPath: path(record.testPath) })),
    );
  }
  files.sort((a, b) => a.testFilePath.localeCompare(b.testFilePath));
  const starts = blobs.map((blob) => blob.startedAt).filter((at): at is number => at !== null);
  return {
    kind: "jest-m3-blob",
    schema: 1,
    runId,
    rootDir: root,
    shard: null,
    run: first.run ? { ...first.run, runId } : { runId },
    files,
    sessions,
    trials,
    verdicts,
    selection: first.selection ?? null,
    shards: { count, merged: [...seen].sort((a, b) => a - b), missing },
    success: missing.length === 0 && blobs.every((blob) => blob.success),
    startedAt: starts.length > 0 ? Math.min(...starts) : null,
    finishedAt: Math.max(...blobs.map((blob) => blob.finishedAt)),
  };
}

/** The shards a merge is missing (1-based), for its message. */
export function missingShards(blobs: readonly RunBlob[]): number[] {
  const count = blobs[0]?.shard?.count ?? 1;
  const seen = new Set(blobs.map((blob) => blob.shard?.index ?? 1));
  return Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
}
