/**
 * Load, sized for 2 cores: a user's project with eight test files, run by Jest with eight
 * workers, each file one session of the real Codex binary on the run's scripted model
 * (started once by m3.config.json scriptedModel), ten turns per session, one to three
 * shipping_quote calls per turn, six turns in ten with calls the model asks for in
 * parallel. Each session checks its own evidence against what it asked for and what its
 * server received (fixtures/load/load-session.ts); this test checks what spans sessions:
 * every session ran, at the same time as others, under its own session id, and nothing
 * the run started is left.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planTurns, type SessionRecord } from "../fixtures/load/load-session";
import {
  jsonLines,
  ledgerProcesses,
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
  stillRunning,
} from "../support/user-project";

const SESSIONS = 8;
const TURNS = 10;
const FIXTURE = join(__dirname, "..", "fixtures", "load");

/** The most sessions open at one moment. */
function peakConcurrency(records: readonly SessionRecord[]): number {
  return Math.max(
    ...records.map(
      (record) =>
        records.filter(
          (other) => other.openedAt <= record.openedAt && record.openedAt < other.closedAt,
        ).length,
    ),
  );
}

test(`${SESSIONS} Codex sessions in parallel across Jest workers, ${TURNS} turns each: no call lost or misattributed, one id per session`, () => {
  const files: Record<string, string> = {
    "m3.config.json": JSON.stringify({
      harnesses: ["codex"],
      scriptedModel: { script: join(FIXTURE, "model-script.json") },
    }),
  };
  for (let index = 1; index <= SESSIONS; index++) {
    files[`session-${index}.test.ts`] =
      `import { loadSessionTest } from ${JSON.stringify(join(FIXTURE, "load-session"))};\n` +
      `loadSessionTest(${index});\n`;
  }
  const dir = makeUserProject(files);
  const out = mkdtempSync(join(tmpdir(), "m3-load-out-"));
  try {
    const run = runJest(dir, {
      args: [`--maxWorkers=${SESSIONS}`],
      env: { M3_LOAD_OUT: out, M3_LOAD_TURNS: String(TURNS) },
      timeoutMs: 240_000,
    });
    expect(run.output).toContain(`Tests:       ${SESSIONS} passed, ${SESSIONS} total`);
    expect(run.status).toBe(0);

    const records = Array.from(
      { length: SESSIONS },
      (_, index) =>
        JSON.parse(readFileSync(join(out, `session-${index + 1}.json`), "utf8")) as SessionRecord,
    );
    // Every session id distinct, and the same in each of its turns.
    expect(new Set(records.map((record) => record.sessionId)).size).toBe(SESSIONS);
    expect(new Set(records.map((record) => record.executionId)).size).toBe(SESSIONS);
    for (const record of records) {
      expect(record.turnSessionIds).toEqual(Array(TURNS).fill(record.sessionId));
    }
    // The sessions really ran side by side, in several workers.
    expect(new Set(records.map((record) => record.workerPid)).size).toBeGreaterThan(1);
    expect(peakConcurrency(records)).toBeGreaterThanOrEqual(4);

    // Every call each session's model asked for, and no other, reached its server.
    const planned = records.map((record) =>
      planTurns(record.index, TURNS).flatMap((turn) => turn.calls),
    );
    expect(records.map((record) => record.calls)).toEqual(planned.map((calls) => calls.length));
    expect(
      records.map((record) => jsonLines(join(out, `calls-${record.index}.jsonl`)).length),
    ).toEqual(planned.map((calls) => calls.length));
    expect(records.every((record) => record.parallelTurns === 6)).toBe(true);
    // Codex ran parallel calls concurrently, so calls really overlapped on one connection.
    expect(records.reduce((sum, record) => sum + record.overlappingTurns, 0)).toBeGreaterThan(0);

    // The run's report holds every session, completed, with all its turns.
    const folder = runFolder(dir);
    const report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as {
      tests: unknown;
      sessions: { sessionId: string; outcome: string; turns: unknown[] }[];
    };
    expect(report.tests).toEqual({ total: SESSIONS, passed: SESSIONS, failed: 0 });
    expect(
      report.sessions
        .map((session) => [session.sessionId, session.outcome, session.turns.length])
        .sort(),
    ).toEqual(records.map((record) => [record.sessionId, "completed", TURNS]).sort());

    // Nothing the run started is left: per session a relay and a server, and per session's
    // file a warm app-server (Codex's default; each file has its own modules, so its own pool).
    const started = ledgerProcesses(folder);
    expect(started.map((child) => child.label).sort()).toEqual(
      Array.from({ length: SESSIONS }, () => [
        "codex app-server (warm)",
        "relay for shipping",
        "server shipping",
      ])
        .flat()
        .sort(),
    );
    expect(stillRunning(started)).toEqual([]);
  } finally {
    removeTempDir(dir);
    removeTempDir(out);
  }
}, 300_000);
