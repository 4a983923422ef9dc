/**
 * Faults in Jest itself, each in a user's project run by Jest as a child process with a
 * real Codex session (scripted model from m3.config.json, the shipping server with its
 * slow tool: fixtures/faults). Each test asserts how the run ends, what evidence is kept,
 * and that no process the run started is left: every process in the run folder's
 * processes/*.jsonl, and the Jest workers, checked with `ps` (zombies count as gone).
 *
 * "In the middle of a turn" means in the middle of a tool call: the model asked for
 * shipping_wait, the server logged the call and sleeps for ten minutes. The test waits for
 * that log line before it interrupts anything.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  cleanUpChildRun,
  childPids,
  jsonLines,
  kitTempDirs,
  ledgerProcesses,
  makeUserProject,
  runFolder,
  runJest,
  startJest,
  startTicks,
  stillRunning,
  waitUntil,
  type LedgerProcess,
  type RunningJest,
} from "../support/user-project";

const FIXTURE = join(__dirname, "..", "fixtures", "faults");
const SESSION = JSON.stringify(join(FIXTURE, "fault-session"));
const CONFIG = JSON.stringify({
  harnesses: ["codex"],
  scriptedModel: { script: join(FIXTURE, "model-script.json") },
});
/**
 * The child run's environment: cold sessions (`M3_FAULT_WARM=0`), since these scenarios
 * check what the preset does with the agent process a kit owns (a warm one is the pool's;
 * in-band-signals.test.ts and agent-jest-faults.test.ts run the default, warm).
 */
const FAULT_ENV = (out: string) => ({ M3_FAULT_OUT: out, M3_FAULT_WARM: "0" });
/** The prompt that leaves a turn in the middle of a ten-minute tool call. */
const WAIT_PROMPT = "wait on shipping for 600 seconds";
/** How long processes get to go away after their owner did. */
const GONE_WITHIN_MS = 5_000;

/** A user's test file: one Codex session that sends `prompt` (the kit closed by `await using`). */
function sessionTest(name: string, prompt: string, jestTimeoutMs?: number): string {
  return `import { MCPTestKit } from "jest-m3";
import { shippingSession } from ${SESSION};

test(${JSON.stringify(name)}, async () => {
  await using kit = new MCPTestKit({ env: {} });
  const session = shippingSession(kit);
  await using open = await session.open();
  await open.send(${JSON.stringify(prompt)});
}${jestTimeoutMs === undefined ? "" : `, ${jestTimeoutMs}`});
`;
}

interface TranscriptRecord {
  readonly testName: string;
  readonly sessionId: string | null;
  readonly outcome: string | null;
  readonly turns: {
    readonly outcome: string | null;
    readonly toolCalls: { tool: string; arguments: string; status: string; evidence: string }[];
  }[];
}

interface Report {
  readonly tests: { total: number; passed: number; failed: number };
  readonly sessions: TranscriptRecord[];
}

const readReport = (folder: string): Report =>
  JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as Report;

/** What a process was, for messages: label and pid. */
const named = (children: readonly LedgerProcess[]): string[] =>
  children.map((child) => `${child.label} (pid ${child.pid})`);

describe("faults in Jest around an open Codex session", () => {
  let dir: string;
  let out: string;
  let jest: RunningJest | undefined;
  /** Processes this test's Jest run started, to stop if a scenario leaves them behind. */
  let leftovers: { pid: number; ticks: string | null }[] = [];
  /** The temporary folders of kits that a scenario kept from closing. */
  let leftoverDirs: string[] = [];

  const project = (files: Record<string, string>): void => {
    dir = makeUserProject({ "m3.config.json": CONFIG, ...files });
    out = mkdtempSync(join(tmpdir(), "m3-fault-out-"));
  };
  const calls = (): { tool: string; arguments: unknown }[] => jsonLines(join(out, "calls.jsonl"));
  /** Waits until the run has `sessions` turns in the middle of shipping_wait; the run's folder. */
  const midTurn = async (sessions: number): Promise<string> => {
    const ledgerFull = (): boolean => {
      const runs = join(dir, ".m3", "runs");
      return (
        existsSync(runs) &&
        readdirSync(runs).length === 1 &&
        ledgerProcesses(runFolder(dir)).length >= 3 * sessions
      );
    };
    const there = await waitUntil(() => calls().length >= sessions && ledgerFull(), 60_000);
    if (!there) throw new Error(`the turns never reached the tool call:\n${jest?.output()}`);
    const folder = runFolder(dir);
    const started = ledgerProcesses(folder);
    for (const child of started) leftovers.push({ pid: child.pid, ticks: child.startTicks });
    for (const pid of jest ? childPids(jest.pid) : [])
      leftovers.push({ pid, ticks: startTicks(pid) });
    leftoverDirs = kitTempDirs(started);
    return folder;
  };
  /** Starts Jest with `args` on the fault project and waits for `sessions` turns mid-call. */
  const startMidTurn = async (args: string[], sessions: number) => {
    const child = startJest(dir, { args, env: FAULT_ENV(out), timeoutMs: 90_000 });
    jest = child;
    const folder = await midTurn(sessions);
    return { child, folder, started: ledgerProcesses(folder) };
  };

  afterEach(async () => {
    // A scenario that failed may leave its processes: stop them, by pid and start time.
    await cleanUpChildRun({ jest, leftovers, folders: [...leftoverDirs, dir, out] });
    jest = undefined;
    leftovers = [];
    leftoverDirs = [];
  });

  test('a clean run on two workers ends without Jest\'s "failed to exit gracefully" warning (the worker guard keeps no IPC handle)', () => {
    const direct = (name: string) => `import { MCPTestKit } from "jest-m3";
import { shippingSession } from ${SESSION};
test(${JSON.stringify(name)}, async () => {
  await using kit = new MCPTestKit({ env: {} });
  expect(shippingSession(kit)).toBeDefined();
});
`;
    project({ "a.test.ts": direct("a"), "b.test.ts": direct("b"), "c.test.ts": direct("c") });
    const run = runJest(dir, { args: ["-w", "2"], env: FAULT_ENV(out), timeoutMs: 90_000 });
    expect(run.output).toContain("Tests:       3 passed, 3 total");
    expect(run.output).not.toContain("failed to exit gracefully");
  }, 120_000);

  test("a test that never closes its kit: the setup file closes it and says so; the session's evidence is kept; no process left", () => {
    project({
      "unclosed.test.ts": `import { MCPTestKit } from "jest-m3";
import { shippingSession } from ${SESSION};

test("never closes its kit", async () => {
  const kit = new MCPTestKit({ env: {} });
  const session = shippingSession(kit);
  await session.open();
  const turn = await session.send("quote weight_kg 4 in zone local");
  expect(turn.toolCalls.map((call) => call.status)).toEqual(["success"]);
});
`,
    });
    const run = runJest(dir, { env: FAULT_ENV(out), timeoutMs: 90_000 });
    const folder = runFolder(dir);
    const started = ledgerProcesses(folder);

    expect(run.output).toContain("Tests:       1 passed, 1 total");
    expect(run.status).toBe(0);
    const appServer = started.find((child) => child.label === "codex app-server");
    expect(run.output).toContain(
      `jest-m3: "never closes its kit" left 1 MCPTestKit(s) open; closed them, stopping codex app-server (pid ${appServer?.pid})`,
    );
    // Closed by the setup file, not left to the orphan guard.
    expect(run.output).not.toContain("outlived their kit");
    expect(
      named(started)
        .map((name) => name.replace(/ \(pid \d+\)/, ""))
        .sort(),
    ).toEqual(["codex app-server", "relay for shipping", "server shipping"]);
    expect(named(stillRunning(started))).toEqual([]);

    expect(calls()).toEqual([
      { tool: "shipping_quote", arguments: { weight_kg: 4, zone: "local" } },
    ]);
    const report = readReport(folder);
    expect(report.tests).toEqual({ total: 1, passed: 1, failed: 0 });
    expect(report.sessions).toEqual([
      expect.objectContaining({
        testName: "never closes its kit",
        outcome: "completed",
        turns: [
          expect.objectContaining({
            outcome: "completed",
            toolCalls: [
              expect.objectContaining({
                tool: "shipping_quote",
                arguments: '{"weight_kg":4,"zone":"local"}',
                status: "success",
                evidence: "both",
              }),
            ],
          }),
        ],
      }),
    ]);
  }, 120_000);

  test("a test that exceeds Jest's timeout while a session is open: Jest reports the timeout; the kit is closed; the session is recorded once, cancelled; no process left", () => {
    project({ "timeout.test.ts": sessionTest("outlives the Jest timeout", WAIT_PROMPT, 8_000) });
    const run = runJest(dir, { env: FAULT_ENV(out), timeoutMs: 90_000 });
    const folder = runFolder(dir);
    const started = ledgerProcesses(folder);

    expect(run.output).toContain("Exceeded timeout of 8000 ms for a test");
    expect(run.output).toContain("Tests:       1 failed, 1 total");
    expect(run.status).toBe(1);
    expect(run.output).toMatch(
      /jest-m3: "outlives the Jest timeout" exceeded Jest's test timeout while 1 MCPTestKit\(s\) were still in use; closed them, stopping codex app-server \(pid \d+\)/,
    );
    expect(run.output).not.toMatch(/left 1 MCPTestKit\(s\) open/);
    expect(run.output).not.toContain("outlived their kit");
    expect(started).toHaveLength(3);
    expect(named(stillRunning(started))).toEqual([]);

    // The evidence of the interrupted turn is kept: the call the server received, cancelled.
    expect(calls()).toEqual([{ tool: "shipping_wait", arguments: { seconds: 600 } }]);
    expect(run.output).toContain("● outlives the Jest timeout — what the agent did");
    const report = readReport(folder);
    expect(report.tests).toEqual({ total: 1, passed: 0, failed: 1 });
    // One session, one record, with the outcome the session really had.
    expect(
      report.sessions.map((session) => ({
        outcome: session.outcome,
        turns: session.turns.map((turn) => [
          turn.outcome,
          turn.toolCalls.map((call) => `${call.tool} ${call.arguments} ${call.status}`),
        ]),
      })),
    ).toEqual([
      {
        outcome: "cancelled",
        turns: [["cancelled", ['shipping_wait {"seconds":600} cancelled']]],
      },
    ]);
  }, 120_000);

  test("SIGINT to Jest (running in band) in the middle of a turn: every process the run started is gone within seconds", async () => {
    project({ "interrupted.test.ts": sessionTest("interrupted mid-turn", WAIT_PROMPT) });
    const { child, started } = await startMidTurn(["--runInBand"], 1);

    process.kill(child.pid, "SIGINT");
    const run = await child.done;
    // Jest has no SIGINT handler outside watch mode: it ends by the signal, at once.
    expect([run.status, run.signal]).toEqual([null, "SIGINT"]);
    await waitUntil(() => stillRunning(started).length === 0, GONE_WITHIN_MS);
    expect(named(stillRunning(started))).toEqual([]);
    // What is kept: the run folder's ledger of what ran, and the server's own log. Jest
    // ended before any test result or transcript could be written.
    expect(started.map((child) => child.testName)).toEqual(Array(3).fill("interrupted mid-turn"));
    expect(calls()).toEqual([{ tool: "shipping_wait", arguments: { seconds: 600 } }]);
  }, 120_000);

  test("SIGINT to Jest (with workers) in the middle of two turns: the workers and every process the run started are gone within seconds", async () => {
    project({
      "first.test.ts": sessionTest("first, interrupted mid-turn", WAIT_PROMPT),
      "second.test.ts": sessionTest("second, interrupted mid-turn", WAIT_PROMPT),
    });
    const { child, started } = await startMidTurn(["--maxWorkers=2"], 2);
    const workers = childPids(child.pid).map((pid) => ({ pid, label: "jest worker" }));
    expect(workers).toHaveLength(2);

    process.kill(child.pid, "SIGINT");
    const run = await child.done;
    expect([run.status, run.signal]).toEqual([null, "SIGINT"]);
    await waitUntil(
      () => stillRunning(started).length + stillRunning(workers).length === 0,
      GONE_WITHIN_MS,
    );
    expect({
      workers: stillRunning(workers).map((worker) => `jest worker (pid ${worker.pid})`),
      started: named(stillRunning(started)),
    }).toEqual({ workers: [], started: [] });
  }, 120_000);

  test("a Jest worker killed (SIGKILL) in the middle of a turn: the run fails naming it; the session's processes end on their own (stdin EOF), before the teardown", async () => {
    project({
      "killed.test.ts": sessionTest("worker killed mid-turn", WAIT_PROMPT),
      // Keeps the run (and its global teardown) waiting until this test has looked.
      "busy.test.ts": `import { existsSync } from "node:fs";
import { join } from "node:path";

test("keeps the run busy", async () => {
  const release = join(process.env.M3_FAULT_OUT!, "release");
  const deadline = Date.now() + 60_000;
  while (!existsSync(release) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
});
`,
    });
    const { child, folder, started } = await startMidTurn(["--maxWorkers=2"], 1);
    // The ledger file is named after the worker whose kit started the processes.
    const ledgers = readdirSync(join(folder, "processes"));
    expect(ledgers).toHaveLength(1);
    const worker = Number(basename(ledgers[0]!, ".jsonl"));
    expect(childPids(child.pid)).toContain(worker);

    process.kill(worker, "SIGKILL");
    await waitUntil(() => stillRunning(started).length === 0, GONE_WITHIN_MS);
    const jestStillRunning = !child.exited;
    expect(named(stillRunning(started))).toEqual([]);
    expect(jestStillRunning).toBe(true);

    writeFileSync(join(out, "release"), "");
    const run = await child.done;
    expect(run.output).toContain(
      `A jest worker process (pid=${worker}) was terminated by another process: signal=SIGKILL`,
    );
    expect(run.output).toContain("Test Suites: 1 failed, 1 passed, 2 total");
    expect(run.status).toBe(1);
    // The orphan guard found nothing to kill; the killed kit's temporary folders (its Codex
    // home among them) were left behind, and Jest's main process removed them (run-guard.ts).
    expect(run.output).not.toContain("outlived their kit");
    expect(run.output).toMatch(
      /a Jest worker \(pid \d+\) ended without closing its kits; (stopped \d+ process\(es\) they started and )?removed \d+ temporary folder\(s\)/,
    );
    expect(leftoverDirs.length).toBeGreaterThan(0);
    expect(leftoverDirs.filter((folder) => existsSync(folder))).toEqual([]);
    expect(calls()).toEqual([{ tool: "shipping_wait", arguments: { seconds: 600 } }]);
    expect(started.map((child) => child.testName)).toEqual(Array(3).fill("worker killed mid-turn"));
  }, 120_000);
});
