/**
 * Blobs for the tests of merge-reports: one as a shard's reporter writes it, every field
 * filled (one test, one session with one turn and call, one trial); and the session record
 * that blobs and a run's executions/<n>.jsonl hold, for the report tests.
 */
import type { TranscriptRecord } from "../../dist/shared/transcript";

type TurnRecord = TranscriptRecord["turns"][number];

/**
 * A session record (a line of a run's executions/<n>.jsonl): agent `test:m1` 1.0.0,
 * completed, with one completed turn ("p" answered "r" in 10 ms, no calls); `fields` and
 * `turn` set the rest and put other values in.
 */
export function sessionRecord(
  fields: Pick<TranscriptRecord, "testPath" | "testName" | "executionId" | "sessionId"> &
    Partial<TranscriptRecord>,
  turn: Partial<TurnRecord> = {},
): TranscriptRecord {
  return {
    agent: "test:m1",
    model: "m1",
    harness: "test",
    version: "1.0.0",
    outcome: "completed",
    error: null,
    gaps: [],
    turns: [
      {
        number: 1,
        outcome: "completed",
        prompt: "p",
        reply: "r",
        error: null,
        durationMs: 10,
        toolCalls: [],
        ...turn,
      },
    ],
    outsideTurns: 0,
    ...fields,
  };
}

/** A blob as the reporter of shard `index` of `count` writes it: one test, one session, one trial. */
export function validBlob(index: number, count = 2): Record<string, unknown> {
  const root = `/ci/shard-${index}`;
  return {
    kind: "jest-m3-blob",
    schema: 1,
    runId: `run-${index}`,
    rootDir: root,
    shard: { index, count },
    run: { runId: `run-${index}`, provider: "scripted model", readiness: {} },
    files: [
      {
        testFilePath: `${root}/a${index}.test.ts`,
        testResults: [
          {
            fullName: "quotes",
            title: "quotes",
            status: "passed",
            duration: 12,
            failureMessages: [],
          },
        ],
        testExecError: null,
        failureMessage: null,
      },
    ],
    sessions: [
      sessionRecord(
        {
          testPath: `${root}/a${index}.test.ts`,
          testName: "quotes",
          executionId: `e${index}`,
          sessionId: `s${index}`,
          provider: null,
          catalogs: [],
          trial: 1,
          errorCode: null,
          durationMs: 30,
        },
        {
          durationMs: 20,
          gaps: [],
          toolCalls: [
            {
              id: "call-1",
              server: "shipping",
              tool: "shipping_quote",
              arguments: "{}",
              status: "success",
              evidence: "both",
              result: "{}",
              error: null,
              latencyMs: 4,
              offsetMs: 2,
              messages: [{ direction: "to_server", kind: "request", afterMs: 0, json: "{}" }],
            },
          ],
        },
      ),
    ],
    trials: [
      {
        testPath: `${root}/a${index}.test.ts`,
        testName: "quotes",
        agent: { harness: "test", model: "m1", version: "1.0.0" },
        trials: 1,
        passed: 1,
        interval: [0.2, 1],
        need: "at least 1 of 1",
      },
    ],
    success: true,
    startedAt: 1_000,
    finishedAt: 2_000,
  };
}
