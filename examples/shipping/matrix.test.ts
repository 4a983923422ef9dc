// The matrix: one test, written once, on every agent the run selects (m3.config.json's
// "agents", or M3_AGENTS="codex=gpt-5.5,claude-code=claude-sonnet-5-5" for one CI job),
// each agent's trials run as fresh sessions and counted into a pass rate.
import { join } from "node:path";
import { MCPTestKit, describeAgents, expect, trials, type StdioServer } from "jest-m3";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "shipping-server.mjs")],
  cwd: __dirname,
};

describeAgents("shipping quotes", (agent) => {
  test("one quote per turn, in every trial", async () => {
    await trials(agent, async () => {
      await using kit = new MCPTestKit({ env: {} });
      const [selection] = kit.agents([agent.selection]);
      const session = selection!.session({
        server,
        tools: ["shipping:shipping_quote"],
        timeout: 120_000,
      });
      let turn;
      {
        await using open = await session.open();
        turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
      }
      expect(session.result).toHaveToolCall("shipping_quote", {
        turn,
        server: "shipping",
        status: "success",
        count: 1,
      });
    });
  });
});
