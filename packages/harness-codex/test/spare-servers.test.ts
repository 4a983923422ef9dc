/**
 * Spare servers on warm Codex: once an app-server has served a spec twice and outlived those
 * sessions, its next sessions find their MCP server already started (a spare), the process
 * each would have started itself, used by no other session. Ground truth: the server's own
 * start log (pid, start time, folder, whole environment) and its call in each turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import { stopWarmPools } from "@jest-m3/core/runner";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { isRunning, seedRule, startLog, startLogServer, waitFor } from "@jest-m3/test-support";

let model: ScriptedModel;
let dir: string;
beforeAll(async () => {
  model = await startScriptedModel({ rules: [seedRule()] });
  dir = mkdtempSync(join(tmpdir(), "m3-spare-"));
});
afterAll(async () => {
  await stopWarmPools();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One warm session of the spec: opens, quotes once, closes; what its trace says of its server. */
async function quoteOnce(log: string, weight: number) {
  await using kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  const warmCodex = { harness: "codex", models: ["scripted"], options: { warm: true } };
  const [agent] = kit.agents([{ ...warmCodex, provider: model.provider }]);
  const session = agent!.session({ server: startLogServer(log), timeout: 60_000 });
  {
    await using open = await session.open();
    const turn = await open.send(`Call shipping_quote once for weight_kg ${weight} in zone local.`);
    expect(turn.response?.text).toBe(`The quote is ${5 + 2 * weight} USD.`);
  }
  const { trace } = session.result;
  const connected = trace.events.filter((event) => event.kind === "connected");
  expect(connected).toHaveLength(1);
  expect(trace.toolCalls.map((call) => call.status)).toEqual(["success"]);
  return {
    spare: connected[0]!.detail.includes("a spare"),
    relayPid: Number(/relay pid (\d+)/.exec(connected[0]!.detail)![1]),
    serverPid: Number(/server pid (\d+)/.exec(connected[0]!.detail)![1]),
  };
}

test("a warm app-server's third and fourth sessions get spares: started ahead, the same process, each used once", async () => {
  // A fresh app-server and no spares (a retried test starts where the first try left off).
  await stopWarmPools();
  const log = join(dir, `starts-${Date.now()}.jsonl`);
  const sessions = [];
  for (const weight of [1, 2, 3, 4]) sessions.push(await quoteOnce(log, weight));
  expect(sessions.map((one) => one.spare)).toEqual([false, false, true, true]);
  const starts = startLog(log);
  const startOf = (pid: number) => starts.find((start) => start.pid === pid)!;
  const pids = sessions.map((one) => one.serverPid);
  expect(new Set(pids).size).toBe(4);
  // A session's own server is its relay's child; a spare was started by the relay that
  // parked it, before this session's relay existed.
  for (const own of sessions.slice(0, 2)) expect(startOf(own.serverPid).ppid).toBe(own.relayPid);
  for (const later of sessions.slice(2)) {
    expect(startOf(later.serverPid).ppid).not.toBe(later.relayPid);
    expect(startOf(later.serverPid).cwd).toBe(startOf(pids[0]!).cwd);
    expect(startOf(later.serverPid).env).toEqual(startOf(pids[0]!).env);
  }
  // Two spares wait for a fifth session; stopping the warm pools ends them with the agent.
  await waitFor(() => startLog(log).length === 6, "two spares to wait");
  await stopWarmPools();
  await waitFor(
    () => startLog(log).every((start) => !isRunning(start.pid)),
    "every server process to end",
  );
});
