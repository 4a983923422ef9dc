/**
 * The judge on a real Codex session (the real binary, the real shipping server, the
 * scripted model as both the agent's model and the judge): a reply that states the amount
 * the tool returned passes, one that does not fails, and what the judge was sent is in the
 * scripted model's journal.
 */
import {
  ExecutionOutcome,
  MCPTestKit,
  expect,
  type ExecutionResult,
  type TurnResult,
} from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { codexShippingSession } from "./support/codex-quotes";
import { judgeRules } from "./support/judge-script";
import { callRule, seedRule } from "@jest-m3/test-support";

describe("toPassJudge on a real Codex session", () => {
  let model: ScriptedModel;
  const kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  let result: ExecutionResult;
  let stated: TurnResult;
  let vague: TurnResult;
  beforeAll(async () => {
    model = await startScriptedModel({
      rules: [
        ...judgeRules,
        seedRule(undefined, { name: "quote, stated" }),
        callRule(
          "roughly",
          "shipping:shipping_quote",
          { weight_kg: 3, zone: "regional" },
          "Shipping to the regional zone is affordable.",
          "quote, vague",
        ),
      ],
    });
    const session = codexShippingSession(kit, model);
    {
      await using open = await session.open();
      stated = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
      vague = await open.send("What does 3 kg to regional cost, roughly?");
    }
    result = session.result;
  });
  afterAll(async () => {
    await kit.close();
    await model.close();
  });

  test("the reply that states the quoted amount passes the judge; the vague one fails it", async () => {
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveToolCall("shipping_quote", { turn: stated, status: "success", count: 1 });
    expect(result).toHaveToolCall("shipping_quote", { turn: vague, status: "success", count: 1 });
    const judge = { provider: model.providerFor("chat-completions"), model: "judge-1" };

    const sent = model.journal.entries.length;
    await expect(stated).toPassJudge("the reply states the quoted amount", { judge });
    await expect(vague).not.toPassJudge("the reply states the quoted amount", { judge });
    let message = "";
    try {
      await expect(vague).toPassJudge("the reply states the quoted amount", { judge });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("Reasoning: The reply does not state the quoted amount 15.5.");
    expect(message).toContain("Shipping to the regional zone is affordable.");

    // Ground truth: the judge saw the amount Codex's tool call really returned (the wire
    // result) and the reply Codex gave.
    const judged = model.journal.entries
      .slice(sent)
      .filter((entry) => entry.dialect === "chat-completions");
    expect(judged).toHaveLength(3);
    expect(judged[0]?.conversation?.user).toContain(
      '"structuredContent":{"amount":9,"currency":"USD"}',
    );
    expect(judged[0]?.conversation?.user).toContain("Reply:\n  The quote is 9 USD.");
    expect(judged[1]?.conversation?.user).toContain(
      '"structuredContent":{"amount":15.5,"currency":"USD"}',
    );
  });
});
