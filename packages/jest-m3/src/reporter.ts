/**
 * The jest-m3 reporter: for each failed test that ran agent sessions, the transcript
 * (turns, prompts, replies, every tool call with its server, arguments, status and
 * evidence); per run, `report.json` in the run folder.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRecords } from "./run-ledger.js";
import { runDir } from "./run-state.js";
import { formatTranscript, type TranscriptRecord } from "./transcript.js";

interface AssertionResult {
  readonly fullName: string;
  readonly status: string;
}
interface TestFileResult {
  readonly testFilePath: string;
  readonly testResults: readonly AssertionResult[];
}
interface AggregatedResult {
  readonly numTotalTests: number;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly success: boolean;
}

function transcripts(dir: string): TranscriptRecord[] {
  return readRecords<TranscriptRecord>(dir, "executions");
}

class M3Reporter {
  private readonly failed: Array<{ test: string; transcripts: TranscriptRecord[] }> = [];

  onTestResult(_test: unknown, result: TestFileResult): void {
    const dir = runDir();
    if (!dir) return;
    const failedTests = result.testResults.filter((entry) => entry.status === "failed");
    if (failedTests.length === 0) return;
    const records = transcripts(dir).filter((record) => record.testPath === result.testFilePath);
    for (const entry of failedTests) {
      const mine = records.filter((record) => record.testName === entry.fullName);
      if (mine.length === 0) continue;
      this.failed.push({ test: entry.fullName, transcripts: mine });
      process.stderr.write(
        `\n● ${entry.fullName} — what the agent did\n\n${mine.map(formatTranscript).join("\n\n")}\n`,
      );
    }
  }

  onRunComplete(_contexts: unknown, results: AggregatedResult): void {
    const dir = runDir();
    if (!dir) return;
    const run = existsSync(join(dir, "run.json"))
      ? (JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as unknown)
      : null;
    const report = {
      run,
      tests: {
        total: results.numTotalTests,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
      },
      success: results.success,
      sessions: transcripts(dir),
      failedWithTranscripts: this.failed,
    };
    writeFileSync(join(dir, "report.json"), JSON.stringify(report, null, 2));
    process.stderr.write(`jest-m3: report written to ${join(dir, "report.json")}\n`);
  }
}

export = M3Reporter;
