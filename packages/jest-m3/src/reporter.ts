/**
 * The jest-m3 reporter: for each failed test that ran agent sessions, the transcript
 * (turns, prompts, replies, every tool call with its server, arguments, status and
 * evidence); per run, `report.json` and the HTML report `report.html` in the run folder.
 *
 * The transcript of a failed test is also appended to its last failure message, so reporters
 * that run after this one (jest-junit's `<failure>` body, say) carry it. Turn that off with
 * `["jest-m3/dist/reporter.js", { "failureTranscripts": false }]`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRecords } from "./run-ledger.js";
import { runDir } from "./run-state.js";
import { formatTranscript, type TranscriptRecord } from "./transcript.js";
import {
  buildRunReport,
  TRANSCRIPT_MARKER,
  type JestFileResult,
  type RunFile,
} from "./report/build.js";
import { renderReportHtml } from "./report/html.js";
import { secretValuesOf } from "./report/redact.js";

interface AssertionResult {
  readonly fullName: string;
  readonly title: string;
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
}

function transcripts(dir: string): TranscriptRecord[] {
  return readRecords<TranscriptRecord>(dir, "executions");
}

class M3Reporter {
  private readonly failed: Array<{ test: string; transcripts: TranscriptRecord[] }> = [];
  private readonly files: TestFileResult[] = [];
  private readonly rootDir: string;
  private readonly failureTranscripts: boolean;

  constructor(globalConfig?: { readonly rootDir?: string }, options?: M3ReporterOptions) {
    this.rootDir = globalConfig?.rootDir ?? process.cwd();
    this.failureTranscripts = options?.failureTranscripts !== false;
  }

  onTestResult(_test: unknown, result: TestFileResult): void {
    const dir = runDir();
    if (!dir) return;
    this.files.push(result);
    const failedTests = result.testResults.filter((entry) => entry.status === "failed");
    if (failedTests.length === 0) return;
    const records = transcripts(dir).filter((record) => record.testPath === result.testFilePath);
    for (const entry of failedTests) {
      const mine = records.filter((record) => record.testName === entry.fullName);
      if (mine.length === 0) continue;
      this.failed.push({ test: entry.fullName, transcripts: mine });
      const shownAbove = entry.failureMessages.join("\n");
      const text = mine.map((record) => formatTranscript(record, shownAbove)).join("\n\n");
      process.stderr.write(`\n● ${entry.fullName} — what the agent did\n\n${text}\n`);
      const last = entry.failureMessages.length - 1;
      if (this.failureTranscripts && last >= 0) {
        entry.failureMessages[last] = `${entry.failureMessages[last]}${TRANSCRIPT_MARKER}${text}`;
      }
    }
  }

  onRunComplete(_contexts: unknown, results: AggregatedResult): void {
    const dir = runDir();
    if (!dir) return;
    const run = existsSync(join(dir, "run.json"))
      ? (JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as RunFile)
      : null;
    const sessions = transcripts(dir);
    const success = runSucceeded(results);
    const report = {
      run,
      tests: {
        total: results.numTotalTests,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
      },
      success,
      sessions,
      failedWithTranscripts: this.failed,
    };
    writeFileSync(join(dir, "report.json"), JSON.stringify(report, null, 2));
    const html = renderReportHtml(
      buildRunReport({
        rootDir: this.rootDir,
        run,
        files: this.files,
        sessions,
        success,
        startedAt: results.startTime ?? null,
        secrets: secretValuesOf(),
        trials: readRecords(dir, "trials"),
      }),
    );
    writeFileSync(join(dir, "report.html"), html);
    process.stderr.write(
      `jest-m3: report written to ${join(dir, "report.html")} (npx jest-m3 show-report)\n`,
    );
  }
}

export = M3Reporter;
