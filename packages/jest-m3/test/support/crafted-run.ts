/**
 * Crafted runs for the tests of the history and of `jest-m3 diff`: a run report built by the
 * reporter's own code from tests, sessions, calls and tool catalogs written out by hand.
 */
import { buildRunReport } from "../../dist/report/build";
import type { RunReport } from "../../dist/report/model";
import type { TranscriptRecord } from "../../dist/shared/transcript";

/** One crafted test: its verdict and the sessions it ran. */
export interface CraftedTest {
  readonly name: string;
  readonly verdict: "passed" | "failed";
  readonly sessions?: readonly CraftedSession[];
  /** trials() records of the test: [passed, run] per agent model. */
  readonly trials?: ReadonlyArray<{ model: string; passed: number; run: number }>;
}

/** One crafted session: agent model, turn durations, calls and catalog. */
export interface CraftedSession {
  readonly model?: string;
  readonly turnMs?: readonly number[];
  readonly calls?: ReadonlyArray<{ server: string; tool: string; status?: string }>;
  readonly catalog?: Record<string, Record<string, string>>;
}

let sequence = 0;

function session(test: string, crafted: CraftedSession): TranscriptRecord {
  sequence += 1;
  const turnMs = crafted.turnMs ?? [100];
  return {
    testPath: "/project/a.test.ts",
    testName: test,
    executionId: `exec-${sequence}`,
    agent: `test:${crafted.model ?? "m1"}`,
    model: crafted.model ?? "m1",
    harness: "test",
    version: "1.0.0",
    sessionId: `s-${sequence}`,
    provider: { name: "scripted", baseUrl: "http://127.0.0.1:1/v1", dialect: "responses" },
    catalogs: Object.entries(crafted.catalog ?? {}).map(([server, tools]) => ({
      server,
      tools: Object.entries(tools).map(([name, schemaHash]) => ({ name, schemaHash })),
    })),
    outcome: "completed",
    error: null,
    gaps: [],
    turns: turnMs.map((durationMs, index) => ({
      number: index + 1,
      outcome: "completed",
      prompt: "p",
      reply: "r",
      error: null,
      durationMs,
      toolCalls:
        index === 0
          ? (crafted.calls ?? []).map((call, position) => ({
              id: `call-${position + 1}`,
              server: call.server,
              tool: call.tool,
              arguments: "{}",
              status: call.status ?? "success",
              evidence: "both",
              latencyMs: 5,
            }))
          : [],
    })),
    outsideTurns: 0,
  };
}

/** The report of a crafted run, built as the reporter builds one. */
export function craftedRun(
  runId: string,
  tests: readonly CraftedTest[],
  success?: boolean,
): RunReport {
  const sessions = tests.flatMap((test) =>
    (test.sessions ?? []).map((crafted) => session(test.name, crafted)),
  );
  return buildRunReport({
    rootDir: "/project",
    run: { runId },
    files: [
      {
        testFilePath: "/project/a.test.ts",
        testResults: tests.map((test) => ({
          fullName: test.name,
          title: test.name,
          status: test.verdict,
          failureMessages: test.verdict === "failed" ? ["boom"] : [],
        })),
      },
    ],
    sessions,
    success: success ?? tests.every((test) => test.verdict === "passed"),
    startedAt: Date.now(),
    secrets: [],
    trials: tests.flatMap((test) =>
      (test.trials ?? []).map((record) => ({
        testPath: "/project/a.test.ts",
        testName: test.name,
        agent: { harness: "test", model: record.model, version: "1.0.0" },
        trials: record.run,
        passed: record.passed,
        interval: [0, 1] as const,
        need: "at least 1",
      })),
    ),
  });
}
