/**
 * The jest-m3 reporter: for each failed test that ran agent sessions, the transcript
 * (turns, prompts, replies, every tool call with its server, arguments, status and
 * evidence); per run, `report.json`, the HTML report `report.html` and the run's blob
 * (`blob.json`, for merge-reports) in the run folder, the per-test-and-agent statistics
 * table, and an entry in the results folder's run history (not for a shard: its merge
 * records the whole run).
 *
 * The transcript of a failed test is also appended to its last failure message, so reporters
 * that run after this one (jest-junit's `<failure>` body, say) carry it. Turn that off with
 * `["jest-m3/dist/reporter.js", { "failureTranscripts": false }]`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readRecords } from "../shared/run-ledger.js";
import { runDir } from "../shared/hand-off.js";
import { formatTranscript, type TranscriptRecord } from "../shared/transcript.js";
import {
  sessionTrial,
  TRANSCRIPT_MARKER,
  type JestFileResult,
  type ReportInput,
  type RunFile,
} from "../report/build.js";
import {
  BLOB_FILE,
  jsonReport,
  makeBlob,
  reportOfBlob,
  statsRows,
  writeReports,
} from "../report/blob.js";
import type { RunReport } from "../report/model.js";
import { secretValuesOf } from "../shared/redact.js";
import { formatStatsTable } from "../report/stats.js";
import { failureAnnotations } from "../report/annotations.js";
import { kitUnusedInRun } from "../shared/run-plan.js";
import { selectionOf, type SelectionConfig } from "../shared/run-selection.js";
import { loadConfig } from "../shared/config.js";
import { pruneRuns } from "./run-retention.js";

interface AssertionResult {
  readonly fullName: string;
  readonly title: string;
  readonly ancestorTitles?: readonly string[];
  readonly status: string;
  readonly duration?: number | null;
  failureMessages: string[];
}
interface TestFileResult extends JestFileResult {
  readonly testResults: AssertionResult[];
}
interface AggregatedResult {
  readonly numTotalTests: number;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numFailedTestSuites?: number;
  readonly numRuntimeErrorTestSuites?: number;
  readonly snapshot?: { readonly failure?: boolean };
  readonly runExecError?: unknown;
  readonly wasInterrupted?: boolean;
  readonly success: boolean;
  readonly startTime?: number;
}

/**
 * Whether the run succeeded. Jest sets `success` only after its reporters' `onRunComplete`,
 * so a reporter reads `false` there on every run; this is Jest's own rule, computed from
 * the counts it has already set (a reporter's own errors aside).
 */
function runSucceeded(results: AggregatedResult): boolean {
  return (
    results.numFailedTests === 0 &&
    (results.numFailedTestSuites ?? 0) === 0 &&
    (results.numRuntimeErrorTestSuites ?? 0) === 0 &&
    results.snapshot?.failure !== true &&
    !results.runExecError &&
    results.wasInterrupted !== true
  );
}

/** The reporter's options, as the second element of its entry in `reporters`. */
interface M3ReporterOptions {
  /** Append a failed test's agent transcript to its failure message (default true). */
  readonly failureTranscripts?: boolean;
  /**
   * In GitHub Actions (`GITHUB_ACTIONS=true`), an `::error` annotation on each failing
   * test's line (default true; off by itself when Jest's `github-actions` reporter is in
   * the run, which writes the same).
   */
  readonly annotations?: boolean;
}

type TrialsRecord = NonNullable<ReportInput["trials"]>[number];

/** Rows of the end-of-run table at most; the report has them all. */
const MAX_TABLE_ROWS = 40;

function transcripts(dir: string): TranscriptRecord[] {
  return readRecords<TranscriptRecord>(dir, "executions");
}

class M3Reporter {
  private readonly files: TestFileResult[] = [];
  private readonly rootDir: string;
  private readonly failureTranscripts: boolean;

  private readonly shard: { index: number; count: number } | null;
  private readonly annotations: boolean;
  private readonly selectionConfig: SelectionConfig | undefined;
  /** The projects (display names) of the test files that ran: part of the run's selection. */
  private readonly projects = new Set<string>();

  constructor(
    globalConfig?: SelectionConfig & {
      readonly rootDir?: string;
      readonly shard?: { readonly shardIndex: number; readonly shardCount: number } | null;
      readonly reporters?: ReadonlyArray<string | readonly [string, unknown]> | null;
    },
    options?: M3ReporterOptions,
  ) {
    this.rootDir = globalConfig?.rootDir ?? process.cwd();
    this.shard = globalConfig?.shard
      ? { index: globalConfig.shard.shardIndex, count: globalConfig.shard.shardCount }
      : null;
    this.failureTranscripts = options?.failureTranscripts !== false;
    this.selectionConfig = globalConfig;
    const jestAnnotates = (globalConfig?.reporters ?? []).some(
      (entry) => (typeof entry === "string" ? entry : entry[0]) === "github-actions",
    );
    this.annotations = options?.annotations !== false && !jestAnnotates;
  }

  onTestResult(
    test:
      | {
          readonly context?: {
            readonly config?: { readonly displayName?: { readonly name?: string } };
          };
        }
      | undefined,
    result: TestFileResult,
  ): void {
    const dir = runDir();
    if (!dir) return;
    this.files.push(result);
    const project = test?.context?.config?.displayName?.name;
    if (project) this.projects.add(project);
    const failedTests = result.testResults.filter((entry) => entry.status === "failed");
    if (failedTests.length === 0) return;
    if (this.annotations && process.env.GITHUB_ACTIONS === "true") {
      // Before the transcripts are appended: an annotation holds the failure itself.
      const base = process.env.GITHUB_WORKSPACE ?? this.rootDir;
      for (const command of failureAnnotations(result.testFilePath, failedTests, base)) {
        process.stderr.write(`\n${command}\n`);
      }
    }
    const records = transcripts(dir).filter((record) => record.testPath === result.testFilePath);
    const trials = readRecords<TrialsRecord>(dir, "trials").filter(
      (record) => record.testPath === result.testFilePath,
    );
    for (const entry of failedTests) {
      const ofTest = trials.filter((record) => record.testName === entry.fullName);
      const mine = records
        .filter((record) => record.testName === entry.fullName)
        .map((record) => ({ ...record, trialOf: sessionTrial(record, ofTest) }));
      if (mine.length === 0) continue;
      const shownAbove = entry.failureMessages.join("\n");
      const text = mine.map((record) => formatTranscript(record, shownAbove)).join("\n\n");
      process.stderr.write(`\n● ${entry.fullName} — what the agent did\n\n${text}\n`);
      const last = entry.failureMessages.length - 1;
      if (this.failureTranscripts && last >= 0) {
        entry.failureMessages[last] = `${entry.failureMessages[last]}${TRANSCRIPT_MARKER}${text}`;
      }
    }
  }

  async onRunComplete(_contexts: unknown, results: AggregatedResult): Promise<void> {
    const dir = runDir();
    if (!dir) return;
    const run = existsSync(join(dir, "run.json"))
      ? (JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as RunFile)
      : null;
    const secrets = secretValuesOf();
    const blob = makeBlob({
      rootDir: this.rootDir,
      shard: this.shard,
      selection: selectionOf(this.selectionConfig, this.projects),
      run,
      files: this.files,
      sessions: transcripts(dir),
      trials: readRecords(dir, "trials"),
      verdicts: readRecords(dir, "verdicts"),
      success: runSucceeded(results),
      startedAt: results.startTime ?? null,
      finishedAt: Date.now(),
      secrets,
    });
    writeFileSync(join(dir, BLOB_FILE), JSON.stringify(blob));
    const report = reportOfBlob(blob, secrets);
    writeReports(dir, report, jsonReport(report, run));
    const table = statsRows(report);
    if (table.length > 0) {
      // A long run shows its weakest rows: lowest pass rate first, the rest in the report.
      const shown = [...table]
        .sort((a, b) => a.trials.rate - b.trials.rate)
        .slice(0, MAX_TABLE_ROWS)
        .sort((a, b) => table.indexOf(a) - table.indexOf(b));
      const hidden = table.filter((row) => !shown.includes(row));
      const more = hidden.length;
      const which = hidden.every((row) => row.trials.rate === 1) ? ", all at 100%" : "";
      process.stderr.write(
        `\njest-m3: per test and agent\n${formatStatsTable(
          shown.map((row) => ({ test: row.test.fullName, stats: row })),
        )}\n${more > 0 ? `  … and ${more} more row(s)${which}: report.json (stats) and report.html\n` : ""}`,
      );
    }
    process.stderr.write(
      `jest-m3: report written to ${join(dir, "report.html")} (npx jest-m3 show-report)\n`,
    );
    if (this.shard) {
      process.stderr.write(
        `jest-m3: shard ${this.shard.index}/${this.shard.count}: its blob is ${join(dir, BLOB_FILE)}; ` +
          "merge the shards' run folders with npx jest-m3 merge-reports <folders...> (the history records the merged run).\n",
      );
    }
    const store = this.shard ? null : await this.record(report, run);
    // Not in a shard: the folders of the other shards may wait here for their merge.
    if (!this.shard) this.prune(dir);
    await this.summarize(report, store);
  }

  /** Keeps the newest `keepRuns` run folders (m3.config.json); says what it removed. */
  private prune(dir: string): void {
    try {
      const { keepRuns } = loadConfig(this.rootDir);
      const { removed } = pruneRuns(dirname(dir), keepRuns, dir);
      if (removed.length > 0) {
        process.stderr.write(
          `jest-m3: removed ${removed.length} old run folder(s), keeping the newest ${keepRuns} ("keepRuns" in m3.config.json; the history keeps every run)\n`,
        );
      }
    } catch (error) {
      process.stderr.write(
        `jest-m3: old run folders were NOT pruned: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }

  /**
   * In GitHub Actions (`GITHUB_STEP_SUMMARY` set), appends the job summary: the test × agent
   * grid and the regressions against the previous run (none for a shard: its merge has them).
   */
  private async summarize(report: RunReport, store: string | null): Promise<void> {
    if (!process.env.GITHUB_STEP_SUMMARY) return;
    try {
      // Loaded only here, as the store is (see record).
      const { writeJobSummary } =
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("../report/ci-summary.js") as typeof import("../report/ci-summary.js");
      const note = this.shard
        ? `Shard ${this.shard.index}/${this.shard.count}: the regressions are in the summary of its merge (npx jest-m3 merge-reports).`
        : "This run was not recorded in the history; no diff.";
      const file = await writeJobSummary(report, store, process.env, note);
      if (file) process.stderr.write(`jest-m3: job summary appended to ${file}\n`);
    } catch (error) {
      process.stderr.write(
        `jest-m3: the job summary was NOT written: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }

  /**
   * Records the run in the results folder's history; a broken store is said, not hidden. A
   * run none of whose tests could use the kit is not an agent run: the history (and
   * `jest-m3 diff`'s "previous run") is left as it was, and the store is not even loaded.
   */
  private async record(report: RunReport, run: RunFile | null): Promise<string | null> {
    const dir = runDir();
    if (!dir) return null;
    if (kitUnusedInRun()) {
      process.stderr.write("jest-m3: no test of this run uses the kit; the history is unchanged\n");
      return null;
    }
    try {
      // Loaded only here (with sql.js): a run that records nothing never loads the store.
      // A require, not import(): the reporter may run inside a VM context (Jest's own tests).
      const { historyPathOf, recordRunInStore } =
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("../store/record.js") as typeof import("../store/record.js");
      const store = historyPathOf(dir);
      await recordRunInStore(store, report, run);
      process.stderr.write(`jest-m3: run recorded in ${store} (npx jest-m3 diff)\n`);
      return store;
    } catch (error) {
      process.stderr.write(
        `jest-m3: the run was NOT recorded in the history: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return null;
    }
  }
}

export = M3Reporter;
