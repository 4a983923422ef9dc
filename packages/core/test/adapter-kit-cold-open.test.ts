/**
 * The adapter kit's cold start (`openCold`) with real child processes: the plan in a fresh
 * folder of the session, the process spawned by the launch and started by the adapter, a
 * failed start one start error with the agent's stderr after the process is stopped, and a
 * session torn down before the spawn starts nothing.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentProcess,
  AgentTimeout,
  ManagedProcess,
  openCold,
  type ProcessLaunch,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core/harness";

const names = { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" };
const folders: string[] = [];
const started: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((agent) => agent.close(200)));
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A launch that spawns real processes and counts them. */
function fakeLaunch(signal = new AbortController().signal) {
  const spawned: ProcessLaunch[] = [];
  const launch = {
    signal,
    tempDir: async (prefix: string) => {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      folders.push(dir);
      return dir;
    },
    spawn: (process: ProcessLaunch) => {
      spawned.push(process);
      return new ManagedProcess(process);
    },
  };
  return { launch, spawned };
}

/** A node process in `root` that writes to stderr and runs until its stdin closes. */
function planIn(root: string) {
  const script = `process.stderr.write("listening\\n"); process.stdin.resume();`;
  const env = { PATH: process.env.PATH ?? "" };
  return {
    process: { label: "my-agent", command: process.execPath, args: ["-e", script], env, cwd: root },
    root,
  };
}

function client(child: ManagedProcess) {
  const agent = new AgentProcess(child);
  started.push(agent);
  return { agent };
}

test("openCold plans in a fresh folder, spawns by the launch and resolves with the start's value", async () => {
  const { launch, spawned } = fakeLaunch();
  const session = await openCold({
    harness: "my-agent",
    names,
    launch,
    prefix: "m3-kit-cold-",
    plan: async (root) => planIn(root),
    client,
    start: async (made, planned) => ({ pid: made.agent.pid, root: planned.root }),
  });
  expect(spawned).toHaveLength(1);
  expect(existsSync(session.root)).toBe(true);
  expect(session.root).toContain("m3-kit-cold-");
  expect(session.pid).toBe(started[0]!.pid);
  expect(started[0]!.exitDescription).toBeUndefined();
});

test("openCold: a failed start is one start error with the stderr, after the process stopped", async () => {
  const { launch } = fakeLaunch();
  const opening = {
    harness: "my-agent",
    names,
    launch,
    prefix: "m3-kit-cold-",
    plan: async (root: string) => planIn(root),
    client,
  };
  const failed = await openCold({
    ...opening,
    start: async (made) => {
      // Until the child has written its line, then time out as a request would.
      while (!made.agent.stderrTail().includes("listening")) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new AgentTimeout("My Agent", "initialize", 100);
    },
  }).catch((caught: unknown) => caught);
  expect(failed).toBeInstanceOf(HarnessStartError);
  expect((failed as Error).message).toContain("initialize");
  expect((failed as Error).message).toMatch(/stderr \(last lines\) ---\nlistening/);
  expect(started[0]!.exitDescription).toBeDefined(); // stopped before the error

  const own = await openCold({
    ...opening,
    start: () => Promise.reject(new Error("no thread")),
    failure: (error) => new HarnessStartError("my-agent", `own words: ${(error as Error).message}`),
  }).catch((caught: unknown) => caught);
  expect((own as Error).message).toContain("own words: no thread");
  expect(started[1]!.exitDescription).toBeDefined();
});

test("openCold: a session torn down while planning spawns nothing", async () => {
  const controller = new AbortController();
  const { launch, spawned } = fakeLaunch(controller.signal);
  const torn = openCold({
    harness: "my-agent",
    names,
    launch,
    prefix: "m3-kit-cold-",
    plan: async (root) => {
      controller.abort();
      return planIn(root);
    },
    client,
    start: async () => "started",
  });
  await expect(torn).rejects.toThrow(/torn down while My Agent was starting/);
  expect(spawned).toHaveLength(0);
});
