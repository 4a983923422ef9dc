/**
 * The adapter through core's agent sessions, as a user's test drives it: the seed (two
 * turns, one session, one call per turn with both wire and reported evidence, asserted with
 * jest-m3's matchers) and a turn that outlives its timeout.
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import claudeCodeHarness, { TESTED_CLAUDE_CODE_VERSION } from "@jest-m3/harness-claude-code";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { expectSeed, HANG_RULE, runSeed, seedRule } from "@jest-m3/test-support";
import { closeAndExpectNoProcessLeft, isRunning, shippingServer } from "./support/claude";

jest.setTimeout(60_000);

describe("Claude Code through the kit's agent sessions", () => {
  let model: ScriptedModel;
  let kit: MCPTestKit;

  beforeEach(async () => {
    model = await startScriptedModel({ rules: [seedRule(), HANG_RULE] });
    kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit, []);
    await model.close();
  });

  test("the seed: two turns share one session, one successful shipping_quote each, wire and reported", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const [agent] = kit.agents([
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: model.providerFor("anthropic-messages"),
      },
    ]);
    const session = agent!.session({
      server: shippingServer(log),
      tools: ["shipping:shipping_quote"],
      timeout: 60_000,
    });
    const run = await runSeed(session, () => kit.processes.map((child) => child.pid));
    expectSeed(run, log);
    expect(run.result.snapshot.agent).toEqual({
      name: "claude-code:scripted-model",
      harness: "claude-code",
      model: "scripted-model",
      version: TESTED_CLAUDE_CODE_VERSION,
    });
    expect(run.first.response?.text).toBe("The quote is 9 USD.");
    expect(run.pids.filter(isRunning)).toEqual([]);
  });

  test("the aliases claude and claude_code select the same harness", async () => {
    const provider = model.providerFor("anthropic-messages");
    const agents = kit.agents([
      { harness: "claude", models: ["scripted-model"], provider },
      { harness: "claude_code", models: ["scripted-model"], provider },
    ]);
    for (const agent of agents) {
      const readiness = await agent.readiness();
      expect(readiness.harness.name).toBe("claude-code");
      expect(readiness.ready).toBe(true);
    }
  });

  test("a turn past its timeout: interrupted in Claude Code, timed_out in the result, nothing left running", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const [agent] = kit.agents([
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: model.providerFor("anthropic-messages"),
      },
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
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
    expect(pids.filter(isRunning)).toEqual([]);
  });
});
