import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { InvalidToolPolicy, isUnavailable, MCPTestKit, type CapturedServer } from "@jest-m3/core";
import { STDIO_RELAY_PATH, stdioRelayLaunch } from "@jest-m3/core/runner";
import { POLICY_DENIED_CODE } from "@jest-m3/core/adapter-kit";
import { connectCaptured } from "@jest-m3/core/testing";
import { isRunning } from "./support/processes";
import {
  faultScript,
  faultServer,
  shipping,
  shippingScript,
  startHttpShipping,
} from "./support/servers";

const quote = { name: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } };

function methods(trace: {
  messages: readonly { direction: string; message?: unknown }[];
}): string[] {
  return trace.messages.map((entry) => {
    const message = entry.message as { method?: string; id?: unknown } | undefined;
    return `${entry.direction}:${message?.method ?? (message && "id" in message ? "response" : "?")}`;
  });
}

/** The initialize handshake's messages (as {@link methods} names them), then `rest`. */
function afterHandshake(...rest: string[]): string[] {
  return [
    "to_server:initialize",
    "from_server:response",
    "to_server:notifications/initialized",
    ...rest,
  ];
}

/** A tools/call and its response. */
const CALLED = ["to_server:tools/call", "from_server:response"];

describe("wire capture through the stdio relay", () => {
  let kit: MCPTestKit;
  const clients: Client[] = [];
  beforeEach(() => {
    kit = new MCPTestKit({ env: {}, killGraceMs: 300 });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
    await kit.close();
  });
  async function connect(server: CapturedServer): Promise<Client> {
    const client = await connectCaptured(server);
    clients.push(client);
    return client;
  }

  test("results are identical to a direct connection, and every message is recorded in order", async () => {
    const direct = new Client({ name: "direct", version: "1" });
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [shippingScript] }),
    );
    const expected = { tools: await direct.listTools(), result: await direct.callTool(quote) };
    await direct.close();

    const { capture, servers } = await kit.capture({ servers: [shipping] });
    const relay = stdioRelayLaunch();
    expect(servers[0]).toMatchObject({ kind: "stdio", name: "shipping", command: relay.command });
    expect(servers[0]?.kind === "stdio" && servers[0].args.slice(0, relay.args.length)).toEqual(
      relay.args,
    );
    const client = await connect(servers[0]!);
    expect(await client.listTools()).toEqual(expected.tools);
    expect(await client.callTool(quote)).toEqual(expected.result);
    await capture.flush();

    const trace = capture.trace;
    expect(methods(trace)).toEqual(
      afterHandshake("to_server:tools/list", "from_server:response", ...CALLED),
    );
    const [call] = trace.toolCalls;
    expect(call).toMatchObject({
      server: "shipping",
      tool: "shipping_quote",
      arguments: quote.arguments,
      status: "success",
      evidence: "wire",
    });
    expect(call?.result).toEqual(expected.result);
    expect(typeof call?.latencyMs).toBe("number");
    expect(call!.latencyMs as number).toBeGreaterThan(0);
    expect(trace.gaps).toEqual([]);
  });

  test("a tool outside the allow-list never reaches the server and is recorded policy_denied", async () => {
    const log = join(await kit.tempDir(), "calls.jsonl");
    const logged = { ...shipping, env: { SHIPPING_CALL_LOG: log } };
    const { capture, servers } = await kit.capture({ servers: [logged], tools: [] });
    const client = await connect(servers[0]!);
    const error = await client.callTool(quote).catch((caught: unknown) => caught);
    expect((error as { code?: number }).code).toBe(POLICY_DENIED_CODE);
    expect((error as Error).message).toContain(
      'Tool "shipping_quote" on server "shipping" is denied by the test\'s tool policy',
    );
    await capture.flush();
    const [call] = capture.trace.toolCalls;
    expect(call?.status).toBe("policy_denied");
    expect(call?.error?.code).toBe(POLICY_DENIED_CODE);
    expect(capture.trace.messages.find((entry) => entry.origin === "policy")?.direction).toBe(
      "from_server",
    );
    expect(existsSync(log)).toBe(false);
  });

  test("an allowed tool passes; the server's own log agrees with the record", async () => {
    const log = join(await kit.tempDir(), "calls.jsonl");
    const logged = { ...shipping, env: { SHIPPING_CALL_LOG: log } };
    const { capture, servers } = await kit.capture({
      servers: [logged],
      tools: ["shipping:shipping_quote"],
    });
    const client = await connect(servers[0]!);
    await client.callTool(quote);
    await client.callTool({
      name: "shipping_quote",
      arguments: { weight_kg: 1, zone: "regional" },
    });
    await capture.flush();
    const received = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).arguments);
    expect(capture.trace.toolCalls.map((call) => call.arguments)).toEqual(received);
  });

  test("allow-list entries naming an unbound server, or malformed, are rejected before anything starts", async () => {
    await expect(kit.capture({ servers: [shipping], tools: ["billing:charge"] })).rejects.toThrow(
      InvalidToolPolicy,
    );
    await expect(kit.capture({ servers: [shipping], tools: ["billing:charge"] })).rejects.toThrow(
      /names server "billing", which is not bound to this session\. .*the bound servers are: "shipping"/,
    );
    await expect(kit.capture({ servers: [shipping], tools: ["shipping_quote"] })).rejects.toThrow(
      /is not of the form server:tool/,
    );
    expect(kit.processes).toEqual([]);
  });

  test("a server crash mid-call: the call ends transport_error, the crash and stderr are recorded, earlier calls kept", async () => {
    const { capture, servers } = await kit.capture({ servers: [faultServer()] });
    const client = await connect(servers[0]!);
    await client.callTool({ name: "echo", arguments: { text: "first" } });
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const trace = capture.trace;
    expect(trace.toolCalls.map((call) => [call.tool, call.status])).toEqual([
      ["echo", "success"],
      ["crash", "transport_error"],
    ]);
    expect(trace.toolCalls[1]?.result).toEqual({
      unavailable: true,
      reason: "the server process exited (code 7)",
    });
    const exit = trace.events.find((event) => event.kind === "process_exit");
    expect(exit?.detail).toContain("segfault in quote engine");
    expect(trace.gaps).toEqual([]);
  });

  test("a 5 MB argument and a 5 MB result cross the relay whole", async () => {
    const { capture, servers } = await kit.capture({ servers: [faultServer()] });
    const client = await connect(servers[0]!);
    const text = "z".repeat(5 * 1024 * 1024);
    const echoed = await client.callTool({ name: "echo", arguments: { text } });
    expect((echoed.content as Array<{ text: string }>)[0]?.text).toBe(text);
    await capture.flush();
    const [call] = capture.trace.toolCalls;
    expect((call?.arguments as { text: string }).text.length).toBe(text.length);
    expect(call?.status).toBe("success");
  });

  test("non-JSON lines from the server are forwarded and recorded as malformed", async () => {
    const { capture, servers } = await kit.capture({ servers: [faultServer("--garbage")] });
    const client = await connect(servers[0]!);
    await client.callTool({ name: "echo", arguments: { text: "ok" } });
    await capture.flush();
    expect(
      capture.trace.messages
        .filter((entry) => entry.kind === "malformed")
        .map((entry) => entry.raw),
    ).toEqual(["this is not json", '{"json":"but not json-rpc"}']);
  });

  test("1,000 calls from 4 concurrent clients in 10 flushed windows: all recorded, each in its own window", async () => {
    const { capture, servers } = await kit.capture({ servers: [faultServer()] });
    const parallel = await Promise.all([0, 1, 2, 3].map(() => connect(servers[0]!)));
    let sent = 0;
    for (let window = 0; window < 10; window++) {
      capture.beginTurn(`w${window}`);
      await Promise.all(
        parallel.map(async (client, index) => {
          for (let call = 0; call < 25; call++) {
            await client.callTool({
              name: "echo",
              arguments: { text: `${window}/${index}/${call}` },
            });
            sent++;
          }
        }),
      );
      await capture.endTurn();
    }
    const calls = capture.trace.toolCalls;
    expect(sent).toBe(1000);
    expect(calls).toHaveLength(1000);
    expect(calls.filter((call) => call.status !== "success")).toEqual([]);
    for (const call of calls) {
      const window = (call.arguments as { text: string }).text.split("/")[0];
      expect(call.turnId).toBe(`w${window}`);
    }
    expect(new Set(calls.map((call) => call.connection)).size).toBe(4);
  });

  test("when the channel drops, the relay keeps forwarding and the trace says evidence is incomplete", async () => {
    const { capture, servers } = await kit.capture({ servers: [shipping] });
    const client = await connect(servers[0]!);
    await client.callTool(quote);
    await capture.flush();
    capture.dropChannels("shipping");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await client.callTool({
      name: "shipping_quote",
      arguments: { weight_kg: 3, zone: "regional" },
    });
    expect(after.structuredContent).toEqual({ amount: 15.5, currency: "USD" });
    const trace = capture.trace;
    expect(trace.toolCalls).toHaveLength(1);
    expect(trace.gaps).toEqual([
      expect.objectContaining({
        server: "shipping",
        reason: expect.stringContaining("channel closed before the server exited"),
      }),
    ]);
  });

  test("when the harness side closes, the relay stops the server and exits", async () => {
    const { capture, servers } = await kit.capture({ servers: [shipping] });
    const client = await connect(servers[0]!);
    await client.callTool(quote);
    await capture.flush();
    const pids = capture.pids;
    expect(pids).toHaveLength(2);
    await client.close();
    const deadline = Date.now() + 3000;
    while (pids.some(isRunning) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pids.filter(isRunning)).toEqual([]);
    const exit = capture.trace.events.find((event) => event.kind === "process_exit");
    expect(exit?.detail).toMatch(/the harness closed the connection/);
  });

  test("the relay passes the server's exit code and stderr through", async () => {
    const { servers } = await kit.capture({ servers: [faultServer("--exit-at-start", "3")] });
    const relay = servers[0]!;
    if (relay.kind !== "stdio") throw new Error("expected a stdio relay");
    const run = spawnSync(relay.command, [...relay.args], {
      encoding: "utf8",
      input: "",
    });
    expect(run.status).toBe(3);
    expect(run.stderr).toContain("fatal: cannot open database");
  });

  test("a relay that cannot reach the kit refuses to start the server, and says why", () => {
    const run = spawnSync(
      process.execPath,
      [
        STDIO_RELAY_PATH,
        "--channel",
        join(__dirname, "no-such-channel.sock"),
        "--server",
        "faulty",
        "--",
        process.execPath,
        faultScript,
      ],
      { encoding: "utf8", input: "" },
    );
    expect(run.status).toBe(70);
    expect(run.stderr).toContain("cannot reach the test kit's channel");
    expect(run.stderr).toContain('not starting server "faulty"');
  });

  test("an escaped method name, a batch, or a last line without newline cannot slip a denied call past the relay", async () => {
    const log = join(await kit.tempDir(), "calls.jsonl");
    const { capture, servers } = await kit.capture({
      servers: [{ ...shipping, env: { SHIPPING_CALL_LOG: log } }],
      tools: [],
    });
    const relay = servers[0]!;
    const init =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}';
    const lines = [
      init,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools\\/call","params":{"name":"shipping_quote","arguments":{"weight_kg":1,"zone":"local"}}}',
      JSON.stringify([
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } },
        },
      ]),
    ];
    const last =
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shipping_quote","arguments":{"weight_kg":3,"zone":"local"}}}';
    if (relay.kind !== "stdio") throw new Error("expected a stdio relay");
    const run = spawnSync(relay.command, [...relay.args], {
      encoding: "utf8",
      input: lines.join("\n") + "\n" + last,
      env: { ...process.env, SHIPPING_CALL_LOG: log },
    });
    expect(run.stdout).toContain('"id":1,"error":{"code":-32001');
    expect(run.stdout).toContain('[{"jsonrpc":"2.0","id":2,"error":{"code":-32001');
    expect(run.stdout).toContain('"id":3,"error":{"code":-32001');
    expect(existsSync(log)).toBe(false);
    // spawnSync held this process: let the kit read what the relay mirrored meanwhile.
    for (
      let waited = 0;
      waited < 3000 && !capture.trace.events.some((event) => event.kind === "process_exit");
      waited += 20
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(capture.trace.toolCalls.map((call) => [call.jsonrpcId, call.status])).toEqual([
      [1, "policy_denied"],
      [2, "policy_denied"],
      [3, "policy_denied"],
    ]);
  });

  test("no relay or server process remains after the kit closes", async () => {
    const { capture, servers } = await kit.capture({
      servers: [shipping, faultServer("--ignore-sigterm")],
    });
    await Promise.all(servers.map((server) => connect(server)));
    await capture.flush();
    const pids = capture.pids;
    expect(pids).toHaveLength(4);
    await kit.close();
    expect(pids.filter(isRunning)).toEqual([]);
  });
});

describe("wire capture through the HTTP proxy", () => {
  let shippingHttp: Awaited<ReturnType<typeof startHttpShipping>>;
  beforeAll(async () => {
    shippingHttp = await startHttpShipping();
  });
  afterAll(() => shippingHttp.stop());

  test("results identical to a direct connection; SSE responses and the session recorded; secrets redacted", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const direct = await connectCaptured({
      kind: "http",
      name: "shipping",
      url: shippingHttp.url,
      headers: {},
    });
    const expected = await direct.callTool(quote);
    await direct.close();

    const { capture, servers } = await kit.capture({
      servers: [
        {
          name: "shipping",
          url: shippingHttp.url,
          headers: { authorization: "Bearer sk-planted-secret-123" },
        },
      ],
    });
    const server = servers[0]!;
    expect(server.kind === "http" && new URL(server.url).hostname).toBe("127.0.0.1");
    const client = await connectCaptured(server);
    expect(await client.callTool(quote)).toEqual(expected);
    await client.close();

    const trace = capture.trace;
    expect(methods(trace)).toEqual(afterHandshake(...CALLED));
    const [call] = trace.toolCalls;
    expect(call).toMatchObject({ tool: "shipping_quote", status: "success", result: expected });
    expect(isUnavailable(call?.latencyMs)).toBe(false);
    expect(JSON.stringify(trace)).not.toContain("sk-planted-secret-123");
    // The harness is handed no headers: the proxy adds them upstream itself.
    expect(server.kind === "http" && server.headers).toEqual({});
  });

  test("the spec's headers reach the server through the proxy; an HTTP error ends the call with its status", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const upstream = createServer((req, res) => {
      seen.push({ ...req.headers });
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("overloaded");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    try {
      await using kit = new MCPTestKit({ env: {} });
      const port = (upstream.address() as AddressInfo).port;
      const { capture, servers } = await kit.capture({
        servers: [
          {
            name: "guarded",
            url: `http://127.0.0.1:${port}/mcp`,
            headers: { authorization: "Bearer sk-upstream-only" },
          },
        ],
      });
      const response = await fetch(servers[0]!.kind === "http" ? servers[0]!.url : "", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "lookup", arguments: {} },
        }),
      });
      expect(response.status).toBe(503);
      expect(seen[0]?.authorization).toBe("Bearer sk-upstream-only");
      const [call] = capture.trace.toolCalls;
      expect(call?.status).toBe("transport_error");
      expect(call?.result).toEqual({
        unavailable: true,
        reason: "the HTTP server answered 503 Service Unavailable",
      });
      expect(JSON.stringify(capture.trace)).not.toContain("sk-upstream-only");
    } finally {
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  test("an escaped method name or a batch cannot slip a denied call past the proxy", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", url: shippingHttp.url }],
      tools: [],
    });
    const url = servers[0]!.kind === "http" ? servers[0]!.url : "";
    const post = (body: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      }).then((response) => response.json() as Promise<unknown>);
    const escaped = await post(
      '{"jsonrpc":"2.0","id":1,"method":"tools\\/call","params":{"name":"shipping_quote","arguments":{}}}',
    );
    expect(escaped).toMatchObject({ id: 1, error: { code: POLICY_DENIED_CODE } });
    const batch = await post(
      JSON.stringify([
        { jsonrpc: "2.0", id: 2, method: "ping" },
        {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "shipping_quote", arguments: {} },
        },
      ]),
    );
    expect(batch).toEqual([
      expect.objectContaining({
        id: 2,
        error: expect.objectContaining({
          message: expect.stringContaining("batch also calls a tool"),
        }),
      }),
      expect.objectContaining({
        id: 3,
        error: expect.objectContaining({ code: POLICY_DENIED_CODE }),
      }),
    ]);
    expect(capture.trace.toolCalls.map((call) => call.status)).toEqual([
      "policy_denied",
      "policy_denied",
    ]);
  });

  test("policy denial over HTTP never reaches the server", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", url: shippingHttp.url }],
      tools: [],
    });
    const client = await connectCaptured(servers[0]!);
    await expect(client.callTool(quote)).rejects.toThrow(/denied by the test's tool policy/);
    await client.close();
    expect(capture.trace.toolCalls.map((call) => call.status)).toEqual(["policy_denied"]);
    expect(capture.trace.messages.filter((entry) => entry.origin === "policy")).toHaveLength(1);
  });
});
