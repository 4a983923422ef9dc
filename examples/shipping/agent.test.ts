// One turn with a real Codex agent: which tool it called, on which server, with which
// arguments, and how it went, all from the evidence that crossed the wire.
import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "shipping-server.mjs")],
  cwd: __dirname,
};

test("the agent quotes an international parcel with the right arguments", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: [process.env.M3_DOCS_CODEX_MODEL!] }]);

  const result = await agent.run(
    "Call shipping_quote once for weight_kg 1.5 in zone international.",
    {
      server,
      tools: ["shipping:shipping_quote"],
      timeout: 120_000,
    },
  );

  expect(result).toBeCompleted();
  expect(result).toHaveToolCall("shipping_quote", {
    server: "shipping",
    arguments: { weight_kg: 1.5, zone: "international" },
    status: "success",
    count: 1,
  });
  expect(result.turns[0]).toHaveTextContaining("15.5"); // 5 + 1.5 kg × 7
});
