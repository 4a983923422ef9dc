/**
 * The adapter kit's concurrent executable → version → start checks, with real processes: the
 * start runs while the version is read; a usable version keeps the start's answer; an
 * unusable one (or a version probe that throws) withdraws the start, whose process is then
 * stopped; a missing executable or runtime starts nothing and says why.
 */
import {
  concurrentAgentChecks,
  isProcessAlive,
  ManagedProcess,
  runnable,
  type ConcurrentCheckSpec,
} from "@jest-m3/core/adapter-kit";
import type { Capability } from "@jest-m3/core/harness";

const node = runnable(process.execPath, "path");

/** A start check that runs a real agent stand-in: it answers after `ms`, unless withdrawn. */
function startingAgent(ms: number) {
  const seen: { pid?: number; startedAt?: number } = {};
  const start = async (_executable: unknown, signal: AbortSignal): Promise<Capability> => {
    seen.startedAt = Date.now();
    const child = new ManagedProcess({
      label: "agent (readiness probe)",
      command: process.execPath,
      args: [
        "-e",
        `setTimeout(() => process.stdout.write("ready"), ${ms}); setInterval(() => {}, 1000)`,
      ],
      env: { PATH: process.env.PATH ?? "" },
      cwd: process.cwd(),
    });
    seen.pid = child.pid;
    try {
      return await new Promise<Capability>((resolve) => {
        child.child.stdout.on("data", () => resolve({ status: "ready" }));
        signal.addEventListener("abort", () =>
          resolve({ status: "unavailable", reason: "withdrawn" }),
        );
      });
    } finally {
      await child.stop(1000);
    }
  };
  return { seen, start };
}

function spec(
  version: ConcurrentCheckSpec<Capability>["version"],
  start: ConcurrentCheckSpec<Capability>["start"],
): ConcurrentCheckSpec<Capability> {
  return {
    agent: "My CLI",
    found: node,
    run: node,
    version,
    start,
    notStarted: (reason) => ({ status: "unavailable", reason }),
  };
}

test("the start runs while the version is read, and counts when the version is usable", async () => {
  const agent = startingAgent(100);
  let versionAsked = 0;
  const checks = await concurrentAgentChecks(
    spec(async () => {
      versionAsked = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { capability: { status: "degraded", reason: "newer than tested" }, text: "1.3.0" };
    }, agent.start),
  );
  expect(checks).toEqual({
    executable: { status: "ready" },
    version: { status: "degraded", reason: "newer than tested" },
    start: { status: "ready" },
    versionText: "1.3.0",
  });
  expect(agent.seen.startedAt).toBeLessThanOrEqual(versionAsked);
  expect(isProcessAlive(agent.seen.pid!)).toBe(false);
});

test("an unusable version withdraws the start: its process is stopped, its answer left out", async () => {
  const agent = startingAgent(60_000);
  const checks = await concurrentAgentChecks(
    spec(
      () =>
        Promise.resolve({
          capability: { status: "unavailable", reason: "too old" },
          text: "0.1.0",
        }),
      agent.start,
    ),
  );
  expect(checks.version).toEqual({ status: "unavailable", reason: "too old" });
  expect(checks.start).toEqual({
    status: "unavailable",
    reason: "not checked: the version check failed",
  });
  expect(checks.versionText).toBe("0.1.0");
  expect(isProcessAlive(agent.seen.pid!)).toBe(false);
});

test("a version probe that throws is an unavailable version, and withdraws the start", async () => {
  const agent = startingAgent(60_000);
  const checks = await concurrentAgentChecks(
    spec(() => Promise.reject(new Error("--version hung")), agent.start),
  );
  expect(checks.version).toEqual({
    status: "unavailable",
    reason: "the version of My CLI could not be read: --version hung",
  });
  expect(checks.start.reason).toBe("not checked: the version check failed");
  expect(checks.versionText).toBeNull();
});

test("no executable, or no runtime for it: nothing starts, and each check says why", async () => {
  const never = (): never => {
    throw new Error("not started");
  };
  const missing = { found: false as const, reason: "No My CLI executable found" };
  expect(
    await concurrentAgentChecks({ ...spec(never, never), found: missing, run: missing }),
  ).toEqual({
    executable: { status: "unavailable", reason: "No My CLI executable found" },
    version: { status: "unavailable", reason: "no My CLI executable to ask for its version" },
    start: { status: "unavailable", reason: "no My CLI executable to start" },
    versionText: null,
  });
  const noNode = { found: false as const, reason: "no Node 22" };
  expect(await concurrentAgentChecks({ ...spec(never, never), run: noNode })).toEqual({
    executable: { status: "ready" },
    version: {
      status: "unavailable",
      reason: "no runtime for My CLI (see node) to ask for its version",
    },
    start: { status: "unavailable", reason: "no runtime for My CLI (see node) to start" },
    versionText: null,
  });
});
