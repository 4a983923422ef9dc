/**
 * Faults in Jest itself, on every agent: Jest's own timeout and a killed Jest worker. One Jest
 * run (as a child process, two workers) per agent holds both: `timeout.test.ts` outlives its
 * Jest timeout while its turn waits in shipping_wait, and `killed.test.ts` loses its worker
 * (SIGKILL) while its turn waits in a call of its own. Afterwards: Jest names both faults,
 * the timed-out session's calls in the run's report are those its server received, none as
 * a success, and nothing the run started is left (checked with `ps`, by pid and start time,
 * independently of the kit); the killed kit's folders are removed.
 * (reliability/jest-faults.test.ts holds the Codex-only scenarios in more depth; the in-band
 * SIGINT and SIGTERM on every agent are in in-band-signals.test.ts.)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  childPids,
  jsonLines,
  ledgerProcesses,
  runFolder,
  startJest,
  stillRunning,
  waitUntil,
} from "../support/user-project";
import { faultConfig, inFaultProject, waitingSessionTest } from "../support/fault-project";
import { startTogether } from "@jest-m3/test-support";

/** Every agent, its model on the scripted model, and a Jest timeout that lets it reach the call. */
const AGENTS = [
  ["codex", "gpt-5.5", 8_000],
  ["claude-code", "claude-sonnet-5-5", 8_000],
  ["gemini", "gemini-scripted", 20_000],
  ["opencode", "scripted-model", 30_000],
] as const;

interface Report {
  readonly sessions: {
    testName: string;
    outcome: string | null;
    turns: { toolCalls: { tool: string; arguments: string; status: string }[] }[];
  }[];
}

/**
 * One agent's scenario: the user's project run, the worker killed, and what the run left
 * checked. It cleans up after itself (what a failed scenario may have left: processes by pid
 * and start time, the Jest run, the folders).
 */
async function scenario(harness: string, model: string, jestTimeoutMs: number): Promise<void> {
  const files = {
    "m3.config.json": faultConfig(harness),
    "timeout.test.ts": waitingSessionTest("outlives the Jest timeout", 600, jestTimeoutMs),
    "killed.test.ts": waitingSessionTest("worker killed mid-call", 601, 120_000),
  };
  await inFaultProject(files, "m3-agent-fault-out-", async (project) => {
    const { dir, out } = project;
    const jest = (project.jest = startJest(dir, {
      args: ["--maxWorkers=2"],
      env: { M3_FAULT_OUT: out, M3_FAULT_AGENT: `${harness}:${model}` },
      timeoutMs: 150_000,
    }));
    const calls = () =>
      jsonLines<{ tool: string; arguments: { seconds: number } }>(join(out, "calls.jsonl"));
    const reached = await waitUntil(
      () => calls().some((call) => call.arguments.seconds === 601),
      90_000,
    );
    if (!reached) throw new Error(`the turn never reached the tool call:\n${jest.output()}`);
    const folder = runFolder(dir);
    // The worker whose kit started the killed test's processes: its ledger file's name.
    const killedLedger = readdirSync(join(folder, "processes")).find((file) =>
      jsonLines<{ testName: string }>(join(folder, "processes", file)).some(
        (child) => child.testName === "worker killed mid-call",
      ),
    );
    const worker = Number(basename(killedLedger ?? "0", ".jsonl"));
    expect(childPids(jest.pid)).toContain(worker);
    const killedDirs = jsonLines<{ path: string }>(join(folder, "dirs", `${worker}.jsonl`)).map(
      (entry) => entry.path,
    );
    expect(killedDirs.length).toBeGreaterThanOrEqual(2);
    project.leftoverDirs.push(...killedDirs);
    for (const child of ledgerProcesses(folder))
      project.leftovers.push({ pid: child.pid, ticks: child.startTicks });

    process.kill(worker, "SIGKILL");
    const run = await jest.done;
    const started = ledgerProcesses(folder);

    // Both faults named.
    expect(run.output).toContain(`Exceeded timeout of ${jestTimeoutMs} ms for a test`);
    expect(run.output).toMatch(
      /jest-m3: "outlives the Jest timeout" exceeded Jest's test timeout while 1 MCPTestKit\(s\) were still in use; closed them/,
    );
    expect(run.output).toContain(
      `A jest worker process (pid=${worker}) was terminated by another process: signal=SIGKILL`,
    );
    expect(run.status).toBe(1);
    // Nothing left: every process either test's kit started, checked by `ps`; the killed
    // kit's processes ended without the orphan guard, and its folders were removed.
    expect(
      started.filter((child) => child.testName === "worker killed mid-call").length,
    ).toBeGreaterThanOrEqual(2);
    expect(stillRunning(started).map((child) => `${child.label} (pid ${child.pid})`)).toEqual([]);
    expect(stillRunning([{ pid: worker }])).toEqual([]);
    // Jest's main process saw the worker die and cleaned up after it (run-guard.ts), well
    // before the global teardown's orphan guard.
    expect(run.output).toMatch(
      new RegExp(
        `jest-m3: a Jest worker \\(pid ${worker}\\) ended without closing its kits; (stopped \\d+ process\\(es\\) they started and )?removed \\d+ temporary folder\\(s\\)`,
      ),
    );
    expect(run.output).not.toContain("outlived their kit");
    expect(killedDirs.filter((path) => existsSync(path))).toEqual([]);
    // Evidence: what the timed-out session's server received is what the run's report
    // holds for it (on a loaded machine a slow agent may not reach the call before Jest's
    // timeout: then neither has it), with the session's outcome and no call as a success.
    const received = calls()
      .filter((call) => call.arguments.seconds === 600)
      .map((call) => [call.tool, JSON.stringify(call.arguments)]);
    const report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as Report;
    const timedOut = report.sessions.filter(
      (session) => session.testName === "outlives the Jest timeout",
    );
    expect(timedOut.map((session) => session.outcome)).toEqual(["cancelled"]);
    const recorded = timedOut[0]!.turns.flatMap((turn) => turn.toolCalls);
    expect(recorded.map((call) => [call.tool, call.arguments])).toEqual(received);
    expect(recorded.filter((call) => call.status === "success")).toEqual([]);
  });
}

// Each scenario mostly waits (for the agent to reach its call, for Jest's timeout to fire),
// so two run at once, the longest Jest timeout first: the file takes about its longest lane
// (OpenCode in one; Gemini CLI, then Codex and Claude Code in the other) instead of the four
// in a row.
const scenarios = startTogether(
  2,
  Object.fromEntries(
    [...AGENTS]
      .sort((a, b) => b[2] - a[2])
      .map(([harness, model, jestTimeoutMs]) => [
        harness,
        () => scenario(harness, model, jestTimeoutMs),
      ]),
  ) as Record<(typeof AGENTS)[number][0], () => Promise<void>>,
);

describe.each(AGENTS)("Jest faults around an open %s session", (harness) => {
  test("Jest's timeout while a turn runs, and a worker killed mid-call: both named, the calls kept, nothing left", async () => {
    await scenarios.run(harness);
  }, 180_000);
});
