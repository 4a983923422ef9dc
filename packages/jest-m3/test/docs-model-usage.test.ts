// The examples of docs/model-usage.md, verbatim (packages/jest-m3/test/docs.test.ts checks it).
import { join } from "node:path";
import {
  MCPTestKit,
  catalogCostOf,
  expect,
  isUnavailable,
  modelCost,
  type StdioServer,
} from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel } from "@jest-m3/scripted-model";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs")],
};

test("one quote stays within its token budget", async () => {
  await using model = await startScriptedModel({
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
    ],
  });
  await using kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"], provider: model.provider }]);
  const session = agent!.session({ server, tools: ["shipping:shipping_quote"] });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
  }
  const result = session.result;

  // Per turn: the model round trips and the tokens the provider reported.
  expect(turn).toHaveModelRequests({ max: 4 });
  expect(result).toStayWithinTokens({ input: 200_000, output: 5_000 }, { turn: 1 });
  const usage = turn.usage; // TokenUsage, or Unavailable with a reason
  if (usage && !isUnavailable(usage)) console.log(usage.inputTokens, usage.outputTokens);

  // Cost from your own price table (none is built in): a missing price is unavailable.
  const cost = modelCost(result.modelRequests ?? [], {
    "gpt-5.5": { inputPerMillion: 1.25, outputPerMillion: 10 },
  });
  expect(isUnavailable(cost)).toBe(false);
  expect(isUnavailable(modelCost(result.modelRequests ?? [], {}))).toBe(true);

  // What the shipping server's tools cost in the context Codex sent its model.
  const shipping = catalogCostOf(result).servers.find((s) => s.server === "shipping")!;
  expect(shipping.tools.map((tool) => tool.name)).toEqual(["shipping_quote"]);
  expect(shipping.estimatedTokens).toBeGreaterThan(0);
});
