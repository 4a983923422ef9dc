/**
 * Per-test properties for jest-junit: point its `testCasePropertiesFile` at this module
 * (see docs/reports.md) and every `<testcase>` gets `m3.agent`, `m3.passRate`, `m3.calls`
 * and `m3.sessions` from the run's recorded sessions. jest-junit calls it once per test,
 * after the run, in Jest's main process (where global setup set the run folder).
 */
import { readRecords } from "../shared/run-ledger.js";
import { runDir } from "../shared/hand-off.js";
import type { TranscriptRecord } from "../shared/transcript.js";

/** The fields of a test result jest-junit hands to a test-case properties module. */
interface JunitTestCase {
  readonly fullName?: string;
  readonly status?: string;
}

let cached: { dir: string; byTest: Map<string, TranscriptRecord[]> } | undefined;

function sessionsByTest(dir: string): Map<string, TranscriptRecord[]> {
  if (cached?.dir === dir) return cached.byTest;
  const byTest = new Map<string, TranscriptRecord[]>();
  for (const record of readRecords<TranscriptRecord>(dir, "executions")) {
    const list = byTest.get(record.testName);
    if (list) list.push(record);
    else byTest.set(record.testName, [record]);
  }
  cached = { dir, byTest };
  return byTest;
}

/**
 * The jest-m3 properties of one test case: which agents ran it, how many of its runs passed,
 * how many tool calls they made. Empty for a test that ran no agent session.
 */
function junitProperties(testCase: JunitTestCase): Record<string, string> {
  const dir = runDir();
  if (!dir || !testCase.fullName) return {};
  const sessions = sessionsByTest(dir).get(testCase.fullName) ?? [];
  if (sessions.length === 0) return {};
  const agents = [
    ...new Set(
      sessions.map(
        (session) =>
          `${session.harness ?? session.agent}${session.version ? ` ${session.version}` : ""} ${session.model}`,
      ),
    ),
  ];
  const calls = sessions.reduce(
    (sum, session) => sum + session.turns.reduce((n, turn) => n + turn.toolCalls.length, 0),
    0,
  );
  // With trials() the pass rate counts each trial; otherwise the test is one run.
  const trials = readRecords<{ testName: string; trials: number; passed: number }>(
    dir,
    "trials",
  ).filter((record) => record.testName === testCase.fullName);
  const total = trials.length > 0 ? trials.reduce((sum, record) => sum + record.trials, 0) : 1;
  const passed =
    trials.length > 0
      ? trials.reduce((sum, record) => sum + record.passed, 0)
      : testCase.status === "passed"
        ? 1
        : 0;
  return {
    "m3.agent": agents.join(", "),
    "m3.passRate": `${passed}/${total} (${Math.round((passed / total) * 100)}%)`,
    "m3.calls": String(calls),
    "m3.sessions": String(sessions.length),
  };
}

export = junitProperties;
