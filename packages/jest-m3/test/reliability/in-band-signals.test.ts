/**
 * Ctrl-C (SIGINT) and SIGTERM on an in-band run (one test file: Jest runs it in its main
 * process), and the sweep at the start of the next run (issue 22, item 4).
 *
 * A user's project is run by Jest as a child process; its one test opens a session of a
 * real agent on the run's scripted model, with a shipping server that ignores EOF, SIGTERM
 * and SIGINT (only SIGKILL ends it), and sits in the middle of a ten-minute tool call when
 * the test signals Jest. Afterwards nothing may be left: checked by pid, independently of
 * the kit (`ps` and /proc, and the pid the server wrote itself), and every temporary folder
 * the kit made is gone. Runs on every agent the project has.
 *
 * The sweep: run folders of earlier runs are faked (an owner that is gone, an owner whose
 * pid was reused, an owner still alive), and the next Jest run must remove the stale ones'
 * folders and stop their processes, and keep the live one's.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  isRunning,
  jsonLines,
  ledgerProcesses,
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
  signalIfSame,
  startJest,
  startTicks,
  waitUntil,
} from "../support/user-project";
import {
  faultConfig,
  inFaultProject,
  serverPids,
  waitingSessionTest,
} from "../support/fault-project";
import { startTogether } from "@jest-m3/test-support";

/** Every agent the project has, as `harness:model` on the scripted model. */
const AGENTS = [
  ["codex", "gpt-5.5"],
  ["claude-code", "claude-sonnet-5-5"],
  ["gemini", "gemini-scripted"],
  ["opencode", "scripted-model"],
] as const;

/** True when /proc has no live entry for `pid` (gone, or a zombie waiting for its reaper). */
function goneFromProc(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

type Signal = "SIGINT" | "SIGTERM";

/**
 * One agent's run signalled mid-call, and what it left checked. It cleans up after itself
 * (what a failed scenario may have left: processes by pid and start time, the Jest run, the
 * folders).
 */
async function scenario(harness: string, model: string, signal: Signal): Promise<void> {
  const files = {
    "m3.config.json": faultConfig(harness),
    "signalled.test.ts": waitingSessionTest("interrupted mid-turn", 600),
  };
  await inFaultProject(files, "m3-signal-out-", async (project) => {
    const { dir, out } = project;
    const jest = (project.jest = startJest(dir, {
      env: { M3_FAULT_OUT: out, M3_FAULT_AGENT: `${harness}:${model}`, M3_FAULT_STUBBORN: "1" },
      timeoutMs: 120_000,
    }));
    const midCall = await waitUntil(
      () => jsonLines(join(out, "calls.jsonl")).length >= 1 && serverPids(out).length >= 1,
      90_000,
    );
    if (!midCall) throw new Error(`the turn never reached the tool call:\n${jest.output()}`);
    const folder = runFolder(dir);
    // Everything the kit started, and the server as it reported itself: the test's own view.
    const started = ledgerProcesses(folder);
    const server = serverPids(out).map((pid) => ({ pid, label: "stubborn server" }));
    for (const child of [...started, ...server])
      project.leftovers.push({ pid: child.pid, ticks: startTicks(child.pid) });
    const kitDirs = jsonLines<{ path: string }>(join(folder, "dirs", `${jest.pid}.jsonl`)).map(
      (entry) => entry.path,
    );
    project.leftoverDirs.push(...kitDirs);
    expect(started.map((child) => child.label)).toEqual(
      expect.arrayContaining(["relay for shipping", "server shipping"]),
    );
    expect(server.map((child) => child.pid)).toEqual(
      started.filter((child) => child.label === "server shipping").map((child) => child.pid),
    );
    // The agent's home, its workspace, the wire sockets: all there before the signal.
    expect(kitDirs.length).toBeGreaterThanOrEqual(2);
    expect(kitDirs.filter((path) => !existsSync(path))).toEqual([]);

    process.kill(jest.pid, signal);
    const run = await jest.done;

    const everyone = [...started, ...server];
    expect(everyone.filter((child) => isRunning(child.pid) || !goneFromProc(child.pid))).toEqual(
      [],
    );
    expect(kitDirs.filter((path) => existsSync(path))).toEqual([]);
    // Jest ends as the signal ends it, after the guard cleaned up, and says what it did.
    expect([run.status, run.signal]).toEqual([null, signal]);
    expect(run.output).toMatch(
      new RegExp(
        `jest-m3: ${signal}: stopped \\d+ process\\(es\\) the run's kits started and removed ${kitDirs.length} temporary folder\\(s\\)`,
      ),
    );
    // Evidence kept: the ledger, the server's own log, and a note of what the signal did.
    expect(jsonLines(join(out, "calls.jsonl"))).toEqual([
      { tool: "shipping_wait", arguments: { seconds: 600 } },
    ]);
    expect(JSON.parse(readFileSync(join(folder, "interrupted.json"), "utf8"))).toEqual(
      expect.objectContaining({ signal, removed: kitDirs }),
    );
  });
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

// Each scenario mostly waits (for its agent to reach the call, for the signalled run to wind
// down), so two run at once, the slowest agents first: the file takes about its longest lane
// instead of the eight in a row.
const scenarios = startTogether(
  2,
  Object.fromEntries(
    [...AGENTS]
      .reverse()
      .flatMap(([harness, model]) =>
        SIGNALS.map((signal) => [`${harness} ${signal}`, () => scenario(harness, model, signal)]),
      ),
  ) as Record<string, () => Promise<void>>,
);

describe.each(AGENTS)("an in-band run of %s, signalled in the middle of a tool call", (harness) => {
  test.each(SIGNALS)(
    "%s: Jest ends by the signal; the stubborn server, the agent and the relay are gone; the kit's temporary folders are removed",
    async (signal) => {
      await scenarios.run(`${harness} ${signal}`);
    },
    150_000,
  );
});

describe("the sweep of earlier runs at the start of a run", () => {
  let dir: string | undefined;
  const made: string[] = [];
  let sleeper: { pid: number; ticks: string | null } | undefined;

  afterEach(() => {
    if (sleeper) signalIfSame(sleeper.pid, sleeper.ticks, "SIGKILL");
    for (const folder of made) removeTempDir(folder);
    removeTempDir(dir);
  });

  /** A process that has come and gone: its pid and start time. */
  function deadProcess(): { pid: number; startTicks: string } {
    const run = spawnSync(process.execPath, [
      "-e",
      'process.stdout.write(`${process.pid} ${require("fs").readFileSync("/proc/self/stat","utf8").split(") ")[1].split(" ")[19]}`)',
    ]);
    const [pid, ticks] = run.stdout.toString().split(" ");
    return { pid: Number(pid), startTicks: ticks! };
  }

  /** A fake earlier run: its owner, one kit folder in the temp folder, and its processes. */
  function fakeRun(
    name: string,
    owner: { pid: number; startTicks: string | null },
    processes: { pid: number; startTicks: string | null }[] = [],
    kitDir = mkdtempSync(join(tmpdir(), "m3-codex-")),
  ): string {
    const run = join(dir!, ".m3", "runs", name);
    made.push(kitDir);
    mkdirSync(join(run, "dirs"), { recursive: true });
    mkdirSync(join(run, "processes"), { recursive: true });
    writeFileSync(join(run, "owner.json"), JSON.stringify(owner));
    writeFileSync(join(run, "dirs", `${owner.pid}.jsonl`), JSON.stringify({ path: kitDir }) + "\n");
    writeFileSync(
      join(run, "processes", `${owner.pid}.jsonl`),
      processes
        .map((child) => JSON.stringify({ ...child, label: "server x", command: "x" }) + "\n")
        .join(""),
    );
    return kitDir;
  }

  test("folders of runs whose owner is gone (or whose pid now belongs to another process) are removed and their processes stopped; a live run's are kept", async () => {
    dir = makeUserProject({ "quick.test.ts": 'test("quick", () => expect(1).toBe(1));\n' });
    const child = spawn("sleep", ["600"], { stdio: "ignore", detached: true });
    child.unref();
    await waitUntil(() => startTicks(child.pid!) !== null, 5_000);
    sleeper = { pid: child.pid!, ticks: startTicks(child.pid!) };

    const dead = fakeRun("2026-01-01-dead", deadProcess(), [
      { pid: sleeper.pid, startTicks: sleeper.ticks },
    ]);
    // This very process's pid, another start time: the owner it names is gone.
    const reused = fakeRun("2026-01-02-reused", { pid: process.pid, startTicks: "1" });
    const live = fakeRun("2026-01-03-live", {
      pid: process.pid,
      startTicks: startTicks(process.pid),
    });
    // A folder outside the temp folder is never removed, even for a stale run.
    const outside = join(dir, "not-in-tmp");
    mkdirSync(outside);
    fakeRun("2026-01-04-outside", deadProcess(), [], outside);

    const run = runJest(dir, { timeoutMs: 60_000 });
    expect(run.output).toContain("Tests:       1 passed, 1 total");
    expect(run.output).toContain(
      "jest-m3: earlier run(s) 2026-01-01-dead, 2026-01-02-reused ended without cleaning up; removed 2 temporary folder(s) and stopped 1 process(es) they left.",
    );
    expect([dead, reused].filter((path) => existsSync(path))).toEqual([]);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(outside)).toBe(true);
    expect(await waitUntil(() => !isRunning(sleeper!.pid), 5_000)).toBe(true);
    expect(
      JSON.parse(readFileSync(join(dir, ".m3", "runs", "2026-01-01-dead", "swept.json"), "utf8")),
    ).toEqual(expect.objectContaining({ stopped: [sleeper.pid], removed: [dead] }));
    // The new run names its owner, for the runs after it; the live run is not marked swept.
    const runs = join(dir, ".m3", "runs");
    const own = readdirSync(runs).filter((name) => !name.startsWith("2026-01-0"));
    expect(own).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(runs, own[0]!, "owner.json"), "utf8"))).toEqual({
      pid: expect.any(Number),
      startTicks: expect.stringMatching(/^\d+$/),
      ended: expect.any(String),
    });
    expect(existsSync(join(runs, "2026-01-03-live", "swept.json"))).toBe(false);
  }, 90_000);
});
