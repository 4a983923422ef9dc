// The matchers on results the real Codex binary produced (scripted model, shipping server):
// wire and reported evidence side by side, per turn.
import { join } from "node:path";
import {
  ExecutionOutcome,
  MCPTestKit,
  expect,
  type ExecutionResult,
  type TurnResult,
} from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { failure } from "./support/failure";

const shipping = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs")],
};

describe("matchers on a real Codex session", () => {
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

  test("per-turn assertions with both kinds of evidence", () => {
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      server: "shipping",
      status: "success",
      count: 1,
    });
    expect(result).toHaveToolCall("shipping_quote").inTurn(second).withStatus("success").times(2);
    expect(result).toHaveToolCall("shipping_quote", {
      turn: second,
      evidence: "reported",
      count: 2,
    });
    expect(result)
      .toHaveToolCall("shipping_quote")
      .inTurn(second)
      .withArguments({ zone: "international" }, { partial: true })
      .withResult({ structuredContent: { amount: 12, currency: "USD" } }, { partial: true })
      .once();
    expect(second).toHaveTextContaining("Local 7, international 12");
    expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote", "shipping_quote"]);
    expect(result.trace.toolCalls.every((call) => call.evidence === "both")).toBe(true);
  });

  test("a failure lists the calls Codex really made, turn by turn", () => {
    const message = failure(() =>
      expect(result).toHaveToolCall("shipping_quote", { turn: first, count: 2 }),
    );
    expect(message).toContain("Received: 1 matching call (wire evidence)");
    expect(message).toMatch(
      / {2}1 +shipping +shipping_quote +success +both +\{"weight_kg":2,"zone":"local"\}/,
    );
    expect(message).toMatch(
      / {2}2 +shipping +shipping_quote +success +both +\{"weight_kg":1,"zone":"international"\}/,
    );
  });
});
