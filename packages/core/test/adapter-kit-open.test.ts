/**
 * The adapter kit's parts of an adapter's `open()`: the startup wait (re-checked on the
 * agent's messages; a reported failure, the deadline, the session's abort and the agent's
 * real exit each end it with one start error and the stderr tail) and the warm opening (a
 * fresh folder for the plan, removed when anything fails, one start error in the agent's
 * words), and the start undone on failure.
 */
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import {
  AgentExited,
  AgentProcess,
  openWarmLease,
  startOrUndo,
  startupWait,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core/harness";
import { nodeAgent } from "@jest-m3/test-support";

const names = { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" };
const agents: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close(200)));
});

/** A real child that writes `stderr`, then exits with `code` when stdin closes (or at once). */
function agent(script: string): AgentProcess {
  const made = new AgentProcess(nodeAgent("my-agent serve", script));
  agents.push(made);
  return made;
}
const LIVES = `process.stderr.write("starting up\\n"); process.stdin.resume();`;

function waitOn(running: AgentProcess, check: () => boolean | string, extra = {}) {
  const messages = new EventEmitter();
  const controller = new AbortController();
  const wait = startupWait({
    harness: "my-agent",
    names,
    agent: running,
    signal: controller.signal,
    timeoutMs: 2000,
    changes: (listener) => {
      messages.on("message", listener);
      return () => messages.off("message", listener);
    },
    check,
    waiting: () => "server still starting",
    ...extra,
  });
  return { wait, messages, controller };
}

test("startupWait resolves once a message makes the check true", async () => {
  let ready = false;
  const { wait, messages } = waitOn(agent(LIVES), () => ready);
  ready = true;
  messages.emit("message");
  await expect(wait).resolves.toBeUndefined();
  expect(messages.listenerCount("message")).toBe(0);
});

test("startupWait: a reported failure, the deadline and the abort are start errors", async () => {
  const running = agent(LIVES);
  await new Promise((resolve) => setTimeout(resolve, 300));
  let state: boolean | string = false;
  const failed = waitOn(running, () => state);
  state = 'MCP server "x" failed to start: boom';
  failed.messages.emit("message");
  const error = await failed.wait.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(HarnessStartError);
  expect((error as Error).message).toContain('MCP server "x" failed to start: boom');
  expect((error as Error).message).toContain("starting up");

  const slow = waitOn(running, () => false, { timeoutMs: 100 });
  await expect(slow.wait).rejects.toThrow(/server still starting/);

  const torn = waitOn(running, () => false);
  torn.controller.abort();
  await expect(torn.wait).rejects.toThrow(/the session was torn down while My Agent was starting/);
});

test("startupWait: the agent's exit ends it, in the adapter's error when it gives one", async () => {
  const dies = agent(
    `process.stderr.write("fatal: no config\\n"); setTimeout(() => process.exit(4), 200);`,
  );
  const { wait } = waitOn(dies, () => false);
  const error = await wait.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(HarnessStartError);
  expect((error as Error).message).toContain("my-agent serve exited (code 4) while starting");
  expect((error as Error).message).toContain("fatal: no config");
  const own = new Error("own exit error");
  await expect(waitOn(dies, () => false, { exited: () => own }).wait).rejects.toBe(own);
});

test("openWarmLease plans in a fresh folder, leases, and removes the folder on any failure", async () => {
  const roots: string[] = [];
  const plan = async (root: string) => {
    roots.push(root);
    return { root };
  };
  const signal = new AbortController().signal;
  const opening = { harness: "my-agent", names, signal, prefix: "m3-kit-warm-open-", plan };
  const lease = await openWarmLease({ ...opening, acquire: async (start) => ({ start }) });
  expect(lease.start.root).toBe(roots[0]);
  expect(existsSync(roots[0]!)).toBe(true);

  const failed = await openWarmLease({
    ...opening,
    acquire: async () => {
      throw new Error("initialize timed out");
    },
  }).catch((caught: unknown) => caught);
  expect(failed).toBeInstanceOf(HarnessStartError);
  expect((failed as Error).message).toContain(
    "the warm my-agent serve did not start: initialize timed out",
  );
  expect(existsSync(roots[1]!)).toBe(false);

  const aborted = new AbortController();
  aborted.abort();
  let acquired = false;
  const torn = openWarmLease({
    ...opening,
    signal: aborted.signal,
    acquire: async () => (acquired = true),
  });
  await expect(torn).rejects.toThrow(/torn down while My Agent was starting/);
  expect(acquired).toBe(false);
  expect(existsSync(roots[2]!)).toBe(false);
  const { rm } = await import("node:fs/promises");
  await rm(roots[0]!, { recursive: true, force: true });
});

test("startOrUndo: the start's value, or its failure in the agent's words after the undo", async () => {
  const running = agent(LIVES);
  const signal = new AbortController().signal;
  const on = { names, signal, stderrTail: () => "out of cheese", undo: () => running.close(200) };
  await expect(startOrUndo("kit", () => Promise.resolve(7), on)).resolves.toBe(7);
  expect(running.exitDescription).toBeUndefined();
  const failed = startOrUndo(
    "kit",
    () => Promise.reject(new AgentExited("my-agent serve", "x", "code 1", "")),
    on,
  );
  await expect(failed).rejects.toThrow(/my-agent serve exited \(code 1\) while starting/);
  await expect(failed).rejects.toThrow(/stderr \(last lines\) ---\nout of cheese/);
  expect(running.exitDescription).toBeDefined(); // undone before the error
  const shared = startOrUndo("kit", () => Promise.reject(new Error("no")), {
    ...on,
    shared: true,
    failure: (error, context) =>
      new HarnessStartError("kit", `own words (${context.stderrTail === "" ? "no" : "a"} tail)`),
  });
  await expect(shared).rejects.toThrow(
    'Harness "kit" could not open a session: own words (a tail)',
  );
  await expect(shared).rejects.not.toThrow(/stderr/);
});
