// The complete example of docs/scripted-model.md: a scripted model started by the test
// itself, and a real Codex agent calling the shipping server through it.
import { join } from "node:path";
import { MCPTestKit, ExecutionOutcome, TurnOutcome, expect, type StdioServer } from "jest-m3";
import { startScriptedModel } from "@jest-m3/scripted-model";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "shipping-server.mjs")],
  cwd: __dirname,
};

test("the agent quotes the amount the tool returned", async () => {
  await using model = await startScriptedModel({
    rules: [
      {
        name: "quote",
        when: { user: /quote (\d+) kg/i },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: (context) => ({ weight_kg: Number(context.match?.[1]), zone: "local" }),
          },
          { reply: "Shipping costs {{result.amount}} {{result.currency}}." },
        ],
      },
    ],
  });

  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = agent.session({ server, tools: ["shipping:shipping_quote"], timeout: 60_000 });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Please quote 2 kg to a local address.");
  }

  expect(session.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(session.result).toHaveToolCall("shipping_quote", {
    turn,
    server: "shipping",
    status: "success",
    count: 1,
  });
  expect(turn.response?.text).toBe("Shipping costs 9 USD.");
  model.journal.assertNoProblems(); // every request went as scripted
});
