/**
 * The adapter kit's probe launch with real processes: the launch a session of the selection
 * would get without servers or credentials, its folders inside one fresh folder, a process
 * it spawned stopped when the probe ends (also when the probe throws), the folder removed.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isProcessAlive, withProbeLaunch } from "@jest-m3/core/adapter-kit";
import type { HarnessLaunch, SelectionSpec } from "@jest-m3/core/harness";

const selection = {
  harness: "my-agent",
  model: "scripted-1",
  options: {},
  provider: { name: "scripted", wireApi: "chat-completions", baseUrl: "http://127.0.0.1:9/v1" },
} as unknown as SelectionSpec;

/** A process that runs until it is stopped. */
function sleeper(launch: HarnessLaunch): number {
  const child = launch.spawn({
    label: "sleeper (readiness probe)",
    command: process.execPath,
    args: ["-e", "setInterval(() => undefined, 1000)"],
    env: launch.env,
    cwd: launch.workspace,
  });
  return child.pid!;
}

test("the launch is the selection's without servers or credentials, in one fresh folder", async () => {
  let seen: HarnessLaunch | undefined;
  let folder = "";
  const answer = await withProbeLaunch("m3-probe-launch-", selection, async (launch) => {
    seen = launch;
    folder = dirname(launch.workspace);
    expect(existsSync(launch.workspace)).toBe(true);
    const home = await launch.tempDir("home-");
    expect(dirname(home)).toBe(folder);
    await writeFile(join(home, "settings.json"), "{}");
    launch.record({ kind: "harness", detail: "kept nowhere" });
    return "answered";
  });
  expect(answer).toBe("answered");
  expect(seen).toMatchObject({
    model: "scripted-1",
    selection,
    provider: selection.provider,
    servers: [],
    credentials: [],
    config: {},
  });
  expect(seen?.toolPolicy.size).toBe(0);
  expect(seen?.signal.aborted).toBe(false);
  expect(existsSync(folder)).toBe(false);
});

test("a process the probe spawned is stopped when it ends, also when it throws", async () => {
  let pid = 0;
  await withProbeLaunch("m3-probe-launch-", selection, async (launch) => {
    pid = sleeper(launch);
    expect(isProcessAlive(pid)).toBe(true);
  });
  expect(isProcessAlive(pid)).toBe(false);
  let folder = "";
  await expect(
    withProbeLaunch("m3-probe-launch-", selection, async (launch) => {
      folder = dirname(launch.workspace);
      pid = sleeper(launch);
      throw new Error("the agent did not answer");
    }),
  ).rejects.toThrow("the agent did not answer");
  expect(isProcessAlive(pid)).toBe(false);
  expect(existsSync(folder)).toBe(false);
});

test("the launch's signal is the one given", async () => {
  const withdraw = new AbortController();
  await withProbeLaunch(
    "m3-probe-launch-",
    selection,
    async (launch) => {
      withdraw.abort(new Error("withdrawn"));
      expect(launch.signal.aborted).toBe(true);
    },
    withdraw.signal,
  );
});
