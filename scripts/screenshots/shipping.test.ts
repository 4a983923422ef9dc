// The run the docs' screenshots are taken of (scripts/screenshots.mjs): Codex on the
// scripted model, a test in three trials of which one fails on purpose, a failing test, and
// a direct test of the server. Its report and history are what the images show.
import { join } from "node:path";
import { MCPTestKit, expect, trials, type StdioServer } from "jest-m3";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "shipping-server.mjs")],
  cwd: __dirname,
};

async function quote(zone: string) {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: [process.env.M3_SHOTS_MODEL!] }]);
  return await agent!.run(`Quote a 2 kg parcel to the ${zone} zone.`, {
    server,
    tools: ["shipping:shipping_quote"],
    timeout: 120_000,
  });
}

test("quotes a local parcel in each of 3 trials", async () => {
  await trials(3, async (trial) => {
    const result = await quote("local");
    // Trial 2 expects a zone the agent was not asked for: it fails, on purpose.
    expect(result).toHaveToolCall("shipping_quote", {
      arguments: { weight_kg: 2, zone: trial === 2 ? "regional" : "local" },
      status: "success",
    });
  });
});

test("quotes a regional parcel", async () => {
  const result = await quote("regional");
  // Fails on purpose: the agent quoted 2 kg, not 5.
  expect(result).toHaveToolCall("shipping_quote", {
    arguments: { weight_kg: 5, zone: "regional" },
  });
});

test("a direct call quotes 9 USD", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const shipping = kit.direct(server);
  const result = await shipping.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });
  const bad = await shipping.callTool("shipping_quote", { weight_kg: -1, zone: "local" });
  expect(bad.isError).toBe(true);
});
