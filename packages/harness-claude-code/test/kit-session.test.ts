/**
 * The adapter through core's agent sessions, as a user's test drives it: the seed (two
 * turns, one session, one call per turn with both wire and reported evidence, asserted with
 * jest-m3's matchers) and a turn that outlives its timeout.
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import claudeCodeHarness, { TESTED_CLAUDE_CODE_VERSION } from "@jest-m3/harness-claude-code";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { callLog, closeAndExpectNoProcessLeft, isRunning, shippingServer } from "./support/claude";

jest.setTimeout(60_000);

describe("Claude Code through the kit's agent sessions", () => {
  let model: ScriptedModel;
  let kit: MCPTestKit;

  beforeEach(async () => {
    model = await startScriptedModel({
      rules: [
        {
          name: "quote",
          when: { user: /weight_kg (\d+) in zone (\w+)/ },
          steps: [
            {
              call: "shipping:shipping_quote",
              args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
            },
            { reply: "The quote is {{result.amount}} {{result.currency}}." },
          ],
        },
        { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
      ],
    });
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
    let first, second;
    let pids: number[];
    {
      await using open = await session.open();
      first = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
      second = await open.send("Call shipping_quote once for weight_kg 3 in zone regional.");
      pids = kit.processes.map((child) => child.pid);
    }
    const result = session.result;
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result.snapshot.agent).toEqual({
      name: "claude-code:scripted-model",
      harness: "claude-code",
      model: "scripted-model",
      version: TESTED_CLAUDE_CODE_VERSION,
    });
    expect(first.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    expect(second.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    expect(first.snapshot.sessionId).toBe(second.snapshot.sessionId);
    expect(first.response?.text).toBe("The quote is 9 USD.");
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      server: "shipping",
      status: "success",
      count: 1,
    });
    expect(result)
      .toHaveToolCall("shipping_quote")
      .inTurn(second)
      .onServer("shipping")
      .withStatus("success")
      .times(1);
    for (const [turn, args] of [
      [first, { weight_kg: 2, zone: "local" }],
      [second, { weight_kg: 3, zone: "regional" }],
    ] as const) {
      expect(
        turn.toolCalls.map((call) => ({
          server: call.server,
          tool: call.tool,
          arguments: call.arguments,
          status: call.status,
          evidence: call.evidence,
          turnId: call.turnId,
        })),
      ).toEqual([
        {
          server: "shipping",
          tool: "shipping_quote",
          arguments: args,
          status: "success",
          evidence: "both",
          turnId: turn.snapshot.turnId,
        },
      ]);
    }
    expect(callLog(log)).toHaveLength(2);
    expect(pids.filter(isRunning)).toEqual([]);
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
