/**
 * The adapter through core's agent sessions, as a user's test drives it: the seed (two
 * turns, one session, one call per turn with both wire and reported evidence) and a turn
 * that outlives its timeout.
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome } from "@jest-m3/core";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { expectSeed, HANG_RULE, runSeed, seedRule } from "@jest-m3/test-support";
import { closeAndExpectNoProcessLeft, isRunning, shippingServer } from "./support/codex";

describe("Codex through the kit's agent sessions", () => {
  let model: ScriptedModel;
  let kit: MCPTestKit;

  beforeEach(async () => {
    model = await startScriptedModel({ rules: [seedRule(), HANG_RULE] });
    kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit, []);
    await model.close();
  });

  test("the seed: two turns share one session, one successful shipping_quote each, wire and reported", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const [agent] = kit.agents([
      { harness: "codex", models: ["scripted"], provider: model.provider },
    ]);
    const session = agent!.session({
      server: shippingServer(log),
      tools: ["shipping:shipping_quote"],
      timeout: 60_000,
    });
    const run = await runSeed(session, () => kit.processes.map((child) => child.pid));
    expectSeed(run, log);
    expect(run.result.snapshot.agent).toEqual({
      name: "codex:scripted",
      harness: "codex",
      model: "scripted",
      version: "0.171.0",
    });
    expect(run.first.response?.text).toBe("The quote is 9 USD.");
    expect(run.pids.filter(isRunning)).toEqual([]);
  });

  test("a turn past its timeout: interrupted in Codex, timed_out in the result, nothing left running", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const [agent] = kit.agents([
      { harness: "codex", models: ["scripted"], provider: model.provider },
    ]);
    const session = agent!.session({ server: shippingServer(log), timeout: 60_000 });
    let turn;
    let pids: number[];
    {
      await using open = await session.open();
      pids = kit.processes.map((child) => child.pid);
      const startedAt = Date.now();
      turn = await open.send("Please hang.", { timeout: 1500 });
      expect(Date.now() - startedAt).toBeLessThan(4000);
    }
    expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
    expect(turn.error?.message).toMatch(/did not finish within 1500 ms/);
    expect(
      turn.events.some(
        (event) =>
          (event as { method?: string; params?: { turn?: { status?: string } } }).params?.turn
            ?.status === "interrupted",
      ),
    ).toBe(true);
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
    expect(pids.filter(isRunning)).toEqual([]);
  });
});
