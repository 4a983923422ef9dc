// The new matchers on results the real Codex binary produced (scripted model, shipping
// server): trajectories per turn with Codex's parallel calls, the trajectory snapshot, the
// negotiated protocol, a soft group, and messages for a near miss.
import { join } from "node:path";
import { MCPTestKit, expect, type ExecutionResult, type TurnResult } from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { failure } from "./support/failure";

const shipping = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs")],
};

describe("trajectories on a real Codex session", () => {
  let model: ScriptedModel;
  const kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  let result: ExecutionResult;
  let first: TurnResult;
  let second: TurnResult;
  beforeAll(async () => {
    model = await startScriptedModel({
      rules: [
        {
          name: "one quote",
          when: { user: /weight_kg (\d+) in zone (\w+)/ },
          steps: [
            {
              call: "shipping:shipping_quote",
              args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
            },
            { reply: "The quote is {{result.amount}} {{result.currency}}." },
          ],
        },
        {
          name: "two quotes",
          when: { user: "compare" },
          steps: [
            {
              parallel: [
                { call: "shipping:shipping_quote", args: { weight_kg: 1, zone: "local" } },
                { call: "shipping:shipping_quote", args: { weight_kg: 1, zone: "international" } },
              ],
            },
            { reply: "Local {{results.0.amount}}, international {{results.1.amount}}." },
          ],
        },
      ],
    });
    const [agent] = kit.agents([
      { harness: "codex", models: ["gpt-5.5"], provider: model.provider },
    ]);
    const session = agent!.session({
      server: shipping,
      tools: ["shipping:shipping_quote"],
      timeout: 60_000,
    });
    await session.open();
    first = await session.send("Call shipping_quote for weight_kg 2 in zone local.");
    second = await session.send("compare local and international for 1 kg");
    await session.close();
    result = session.result;
  });
  afterAll(async () => {
    await kit.close();
    await model.close();
  });

  test("trajectory modes per turn and across the session, on wire and reported evidence", () => {
    expect(result).toHaveToolCalls(
      [{ tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } }],
      {
        turn: first,
      },
    );
    expect(result).toHaveToolCalls(
      [
        { tool: "shipping_quote", arguments: { zone: "international" } },
        { tool: "shipping_quote", arguments: { zone: "local" } },
      ],
      { turn: second.snapshot, mode: "unordered", argumentsMatch: "partial" },
    );
    expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote", "shipping_quote"], {
      evidence: "reported",
    });
    expect(result).toHaveToolCalls(["shipping_quote"], { mode: "subset", turn: 2 });
    expect(
      failure(() =>
        expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote"], { turn: first }),
      ),
    ).toContain("Missing (1):");
  });

  test("the trajectory snapshot is stable: Codex's parallel calls are sorted", () => {
    expect(result).toMatchTrajectorySnapshot();
  });

  test("protocol, trace, durations, result projection and a soft group", () => {
    expect(result).toHaveProtocolVersion(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), {
      server: "shipping",
    });
    expect(result).toHaveTrace();
    expect(result).toHaveLifecycle("finished");
    expect(second).toHaveDuration({ maxMs: 60_000 });
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      result: {
        content: [expect.objectContaining({ type: "text" })],
        structuredContent: { amount: 9, currency: "USD" },
      },
    });
    const message = failure(() =>
      expect.softly(() => {
        expect(result).toHaveToolCall("shipping_quote", {
          turn: second,
          arguments: { weight_kg: 1, zone: "regional" },
        });
        expect(result).toHaveToolCall("shiping_quote");
        expect(first).toBeCompleted();
      }),
    );
    expect(message).toMatch(/^2 grouped assertions failed:/);
    expect(message).toContain('-   "zone": "regional",');
    expect(message).toContain('Did you mean "shipping_quote"? It was called 3 times.');
    expect(message).toContain("matchers-m3-codex.test.ts:");
  });
});
