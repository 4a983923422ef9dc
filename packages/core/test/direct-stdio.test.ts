import {
  ClientClosed,
  isUnavailable,
  MCPTestKit,
  TraceStillOpen,
  type ToolCall,
} from "@jest-m3/core";
import { closeAndExpectNoProcessLeft } from "./support/processes";
import { shipping } from "./support/servers";

describe("DirectClient over stdio (shipping server)", () => {
  let kit: MCPTestKit;
  beforeEach(() => {
    kit = new MCPTestKit({ env: {} });
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit);
  });

  test("initialize names the server and its capabilities", async () => {
    const client = kit.direct(shipping);
    const identity = await client.initialize();
    expect(identity.serverInfo).toEqual(
      expect.objectContaining({ name: "shipping", version: "1.0.0" }),
    );
    expect(identity.capabilities?.tools).toBeDefined();
    expect(kit.processes).toEqual([
      expect.objectContaining({ pid: client.pid, label: "shipping" }),
    ]);
  });

  test("lists the shipping_quote tool with its schemas", async () => {
    const tools = await kit.direct(shipping).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["shipping_quote"]);
    expect(tools[0]?.inputSchema.properties).toEqual(
      expect.objectContaining({ weight_kg: expect.objectContaining({ type: "number" }) }),
    );
    expect(tools[0]?.outputSchema?.properties).toHaveProperty("amount");
  });

  test("calls the tool: structured content and text, one success record", async () => {
    const client = kit.direct(shipping);
    const result = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "Quote calculated" }]);
    expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });

    const [call, ...rest] = client.trace.toolCalls;
    expect(rest).toHaveLength(0);
    expect(call).toMatchObject<Partial<ToolCall>>({
      server: "shipping",
      tool: "shipping_quote",
      arguments: { weight_kg: 2, zone: "local" },
      status: "success",
      evidence: "wire",
      error: null,
      turnId: null,
    });
    expect(call?.result).toEqual(
      expect.objectContaining({ structuredContent: { amount: 9, currency: "USD" } }),
    );
  });

  test.each([
    [3, "regional", 15.5],
    [1, "international", 12],
  ])("quotes %d kg %s at %d", async (weight, zone, amount) => {
    const result = await kit
      .direct(shipping)
      .callTool("shipping_quote", { weight_kg: weight, zone });
    expect(result.structuredContent).toEqual({ amount, currency: "USD" });
  });

  test("a tool error is a value with isError, recorded as tool_error", async () => {
    const client = kit.direct(shipping);
    const result = await client.callTool("shipping_quote", { weight_kg: 0, zone: "local" });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: "text", text: "weight_kg must be greater than 0, got 0" },
    ]);
    expect(client.trace.toolCalls.map((call) => call.status)).toEqual(["tool_error"]);
  });

  test("the trace records every message in order with direction and monotonic time", async () => {
    const client = kit.direct(shipping);
    await client.listTools();
    await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    await client.ping();
    const { messages } = client.trace;
    const summary = messages.map((entry) => {
      const message = entry.message as { method?: string } | undefined;
      return `${entry.direction}:${entry.kind}:${message?.method ?? ""}`;
    });
    expect(summary).toEqual([
      "to_server:request:initialize",
      "from_server:response:",
      "to_server:notification:notifications/initialized",
      "to_server:request:tools/list",
      "from_server:response:",
      "to_server:request:tools/call",
      "from_server:response:",
      "to_server:request:ping",
      "from_server:response:",
    ]);
    expect(messages.map((entry) => entry.seq)).toEqual(messages.map((_, index) => index));
    for (let index = 1; index < messages.length; index++) {
      expect(messages[index]!.at).toBeGreaterThanOrEqual(messages[index - 1]!.at);
    }
    expect(new Set(messages.map((entry) => entry.connection)).size).toBe(1);
  });

  test("timing fields: startedAt ≤ endedAt, latency is their difference, jsonrpcId matches the wire", async () => {
    const client = kit.direct(shipping);
    const before = performance.timeOrigin + performance.now();
    await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    const after = performance.timeOrigin + performance.now();
    const call = client.trace.toolCalls[0]!;
    expect(typeof call.endedAt).toBe("number");
    expect(typeof call.startedAt).toBe("number");
    const endedAt = call.endedAt as number;
    const startedAt = call.startedAt as number;
    expect(startedAt).toBeGreaterThanOrEqual(before);
    expect(endedAt).toBeGreaterThanOrEqual(startedAt);
    expect(endedAt).toBeLessThanOrEqual(after);
    expect(call.latencyMs).toBeCloseTo(endedAt - startedAt, 6);
    const request = client.trace.messages.find(
      (entry) => (entry.message as { method?: string } | undefined)?.method === "tools/call",
    );
    expect((request?.message as { id: number }).id).toBe(call.jsonrpcId);
  });

  test("finalTrace throws before close and holds everything after", async () => {
    const client = kit.direct(shipping);
    await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    expect(() => client.finalTrace).toThrow(TraceStillOpen);
    expect(() => client.finalTrace).toThrow(/only available after DirectClient.close\(\)/);
    await client.close();
    await client.close();
    const final = client.finalTrace;
    expect(final.toolCalls).toHaveLength(1);
    expect(final.events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(["connected", "closed"]),
    );
    expect(isUnavailable(final.toolCalls[0]!.result)).toBe(false);
  });

  test("a client used after its own close says so", async () => {
    const client = kit.direct(shipping);
    await client.ping();
    await client.close();
    // The client is closed, not the kit: the error says which, with a stable code.
    await expect(client.listTools()).rejects.toThrow(ClientClosed);
    await expect(client.listTools()).rejects.toMatchObject({
      code: "M3_CLIENT_CLOSED",
      message: expect.stringMatching(/direct client of server "shipping" after client\.close\(\)/),
    });
  });
});
