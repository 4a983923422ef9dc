/**
 * The adapter kit's cold start with the adapter's own stop (`close`): an agent that ignores
 * its stdin closing (it stops on SIGTERM only) is stopped as the adapter says when its start
 * fails, before the start error is thrown; without `close` it is stopped the kit's way.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentProcess,
  ManagedProcess,
  openCold,
  type ColdOpening,
  type ProcessLaunch,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core/harness";

const names = { agent: "My Agent" };
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const launch = {
  signal: new AbortController().signal,
  tempDir: async (prefix: string) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  },
  spawn: (process: ProcessLaunch) => new ManagedProcess(process),
};

/** A node process that keeps running when its stdin closes, and says so when SIGTERM stops it. */
function stubborn(root: string) {
  const script =
    'process.on("SIGTERM", () => { process.stderr.write("sigterm\\n"); process.exit(0); });' +
    'process.stdin.resume(); setInterval(() => {}, 1000); process.stderr.write("ready\\n");';
  const env = { PATH: process.env.PATH ?? "" };
  return {
    process: { label: "my-agent", command: process.execPath, args: ["-e", script], env, cwd: root },
  };
}

/** The agent started by {@link openStubborn}, once it has been. */
let agent: AgentProcess | undefined;

/** A cold start of {@link stubborn}, with the test's own start failure and stop. */
function openStubborn(
  options: Pick<
    ColdOpening<ReturnType<typeof stubborn>, { readonly agent: AgentProcess }, never>,
    "start" | "close" | "closeGraceMs"
  >,
) {
  agent = undefined;
  return openCold({
    harness: "my-agent",
    names,
    launch,
    prefix: "m3-kit-cold-close-",
    plan: async (root) => stubborn(root),
    client: (child) => ({ agent: (agent = new AgentProcess(child)) }),
    ...options,
  });
}

test("a failed start is undone with the adapter's close, before the error is thrown", async () => {
  const closed: string[] = [];
  const failed = openStubborn({
    start: async (client) => {
      // Refused once the agent runs (its SIGTERM handler in place).
      await new Promise((resolve) => client.agent.process.child.stderr.once("data", resolve));
      throw new Error("initialize was refused");
    },
    close: async (client) => {
      closed.push("asked");
      client.agent.process.terminate();
      await client.agent.process.exited;
      closed.push(client.agent.exitDescription ?? "running");
    },
  });
  await expect(failed).rejects.toThrow(HarnessStartError);
  await expect(failed).rejects.toThrow(/initialize was refused/);
  expect(closed).toEqual(["asked", "code 0"]);
  expect(agent?.exitDescription).toBe("code 0");
  expect(agent?.process.stderrTail()).toContain("sigterm");
});

test("without close, the kit stops it (stdin, grace, then its group)", async () => {
  const failed = openStubborn({
    start: () => Promise.reject(new Error("initialize was refused")),
    closeGraceMs: 200,
  });
  await expect(failed).rejects.toThrow(/initialize was refused/);
  expect(agent?.exitDescription).toBeDefined();
});
