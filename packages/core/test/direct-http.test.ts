import { MCPTestKit, ServerStartError } from "@jest-m3/core";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { startHttpShipping } from "./support/servers";

describe("DirectClient over Streamable HTTP (shipping server)", () => {
  let shipping: Awaited<ReturnType<typeof startHttpShipping>>;
  beforeAll(async () => {
    shipping = await startHttpShipping();
  });
  afterAll(async () => {
    await shipping.stop();
  });

  test("lists, calls, returns tool errors and structured content, and records it all", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct({ name: "shipping", url: shipping.url });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["shipping_quote"]);
    const ok = await client.callTool("shipping_quote", { weight_kg: 3, zone: "regional" });
    expect(ok.structuredContent).toEqual({ amount: 15.5, currency: "USD" });
    const bad = await client.callTool("shipping_quote", { weight_kg: 1, zone: "mars" });
    expect(bad.isError).toBe(true);

    const calls = client.trace.toolCalls;
    expect(calls.map((call) => [call.tool, call.status, call.arguments])).toEqual([
      ["shipping_quote", "success", { weight_kg: 3, zone: "regional" }],
      ["shipping_quote", "tool_error", { weight_kg: 1, zone: "mars" }],
    ]);
    for (const call of calls) {
      expect(typeof call.latencyMs).toBe("number");
      expect(call.latencyMs as number).toBeGreaterThanOrEqual(0);
    }
    expect(client.pid).toBeUndefined();
    expect(kit.processes).toEqual([]);
  });

  test("headers from the spec reach the server", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const recorder = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "nope" }));
    });
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    const port = (recorder.address() as AddressInfo).port;
    try {
      await using kit = new MCPTestKit({ env: {} });
      const client = kit.direct({
        name: "guarded",
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { "x-test-token": "token-name-only" },
      });
      await expect(client.initialize()).rejects.toBeInstanceOf(ServerStartError);
      expect(seen[0]?.["x-test-token"]).toBe("token-name-only");
    } finally {
      await new Promise((resolve) => recorder.close(resolve));
    }
  });

  test("nothing listening: a ServerStartError that names the server and the URL", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await using kit = new MCPTestKit({ env: {} });
    const error = await kit
      .direct({ name: "offline", url: `http://127.0.0.1:${port}/mcp` })
      .listTools()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as Error).message).toContain('Server "offline" failed to start');
    expect((error as Error).message).toContain(`http://127.0.0.1:${port}/mcp`);
  });
});
