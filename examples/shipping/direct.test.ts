// Agent-free tests of the shipping server: the kit starts it, calls it directly, and
// every message is recorded.
import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "shipping-server.mjs")],
  cwd: __dirname,
};

test("quotes a parcel with structured content", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const shipping = kit.direct(server);

  const result = await shipping.callTool("shipping_quote", { weight_kg: 2, zone: "local" });

  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });
});

test("the text content says the quote was calculated", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const result = await kit
    .direct(server)
    .callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(result.content).toEqual([{ type: "text", text: "Quote calculated" }]);
});

test("bad input is a tool error, not an exception", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const shipping = kit.direct(server);

  const result = await shipping.callTool("shipping_quote", { weight_kg: -1, zone: "local" });

  expect(result.isError).toBe(true);
  expect(shipping.trace.toolCalls).toEqual([
    expect.objectContaining({ tool: "shipping_quote", status: "tool_error" }),
  ]);
});

test("the trace holds every call with its arguments and timing", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const shipping = kit.direct(server);

  await shipping.callTool("shipping_quote", { weight_kg: 3, zone: "regional" });
  await shipping.callTool("shipping_quote", { weight_kg: 1, zone: "international" });
  await shipping.close();

  const calls = shipping.finalTrace.toolCalls;
  expect(calls.map((call) => call.arguments)).toEqual([
    { weight_kg: 3, zone: "regional" },
    { weight_kg: 1, zone: "international" },
  ]);
  expect(calls.map((call) => call.result)).toEqual([
    expect.objectContaining({ structuredContent: { amount: 15.5, currency: "USD" } }),
    expect.objectContaining({ structuredContent: { amount: 12, currency: "USD" } }),
  ]);
  for (const call of calls) expect(call.latencyMs).toBeGreaterThanOrEqual(0);
});
