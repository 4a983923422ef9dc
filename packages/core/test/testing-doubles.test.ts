import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ElicitationRoundLimit,
  InvalidArgument,
  MCPTestKit,
  MissingSecret,
  OperationTimeout,
  ProtocolError,
  RecordingError,
  RepeatingCursor,
  SchemaValidationError,
  ServerStartError,
  TransportError,
  secretFromEnv,
  type StdioServer,
} from "@jest-m3/core";
import {
  loadRecording,
  mockServer,
  recordingFromTrace,
  replayServer,
  saveRecording,
  withFaults,
  type MockTool,
} from "@jest-m3/core/testing";
import { closeAndExpectNoProcessLeft } from "./support/processes";
import { faultServer } from "./support/servers";

const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};
const paging = (...flags: string[]): StdioServer => ({
  name: "paging",
  command: process.execPath,
  args: [join(__dirname, "fixtures", "paging-server.mjs"), ...flags],
});

const forecast: MockTool = {
  name: "forecast",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  handler: ({ city }) => `Sunny in ${String(city)}`,
};

describe("mockServer", () => {
  test("over stdio: tools listed and called, handler errors are tool errors, calls recorded", async () => {
    await using mock = mockServer({
      name: "weather",
      instructions: "Ask for forecasts.",
      tools: [
        forecast,
        {
          name: "broken",
          handler: () => {
            throw new Error("the forecast service is down");
          },
        },
      ],
    });
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio());
    expect((await client.initialize()).instructions).toBe("Ask for forecasts.");
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["forecast", "broken"]);
    expect(await client.callTool("forecast", { city: "Lisbon" })).toEqual({
      content: [{ type: "text", text: "Sunny in Lisbon" }],
    });
    const broken = await client.callTool("broken");
    expect(broken).toEqual({
      isError: true,
      content: [{ type: "text", text: "the forecast service is down" }],
    });
    expect(mock.calls).toEqual([
      expect.objectContaining({
        tool: "forecast",
        arguments: { city: "Lisbon" },
        transport: "stdio",
      }),
      expect.objectContaining({ tool: "broken", error: "the forecast service is down" }),
    ]);
    expect(client.trace.toolCalls.map((call) => call.status)).toEqual(["success", "tool_error"]);
    await closeAndExpectNoProcessLeft(kit);
  });

  test("paging: listTools() follows every page; the page form exposes the cursor", async () => {
    await using mock = mockServer({
      name: "paged",
      pageSize: 2,
      tools: ["a", "b", "c", "d", "e"].map((name) => ({ name, handler: () => name })),
    });
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio());
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["a", "b", "c", "d", "e"]);
    const first = await client.listToolsPage();
    expect(first.tools.map((tool) => tool.name)).toEqual(["a", "b"]);
    expect(first.nextCursor).toBe("2");
    const last = await client.listToolsPage("4");
    expect(last.tools.map((tool) => tool.name)).toEqual(["e"]);
    expect(last.nextCursor).toBeUndefined();
  });

  test("over HTTP with a bearer token from a secret reference: the value never reaches the trace", async () => {
    const token = "s3cret-token-value-123";
    process.env.M3_TEST_MOCK_TOKEN = token;
    try {
      await using mock = mockServer({
        name: "private",
        requireHeaders: { authorization: `Bearer ${token}` },
        tools: [
          {
            name: "whoami",
            handler: (_args, context) => `you sent ${context.headers.authorization}`,
          },
        ],
      });
      await using kit = new MCPTestKit({ env: {} });
      const spec = await mock.http();
      const client = kit.direct(spec, { auth: { bearer: secretFromEnv("M3_TEST_MOCK_TOKEN") } });
      const result = await client.callTool("whoami");
      expect(result.content).toEqual([{ type: "text", text: `you sent Bearer ${token}` }]);
      expect(mock.calls[0]?.transport).toBe("http");
      const recorded = JSON.stringify(client.trace);
      expect(recorded).not.toContain(token);
      expect(recorded).toContain("[redacted: M3_TEST_MOCK_TOKEN]");

      const anonymous = kit.direct(spec);
      await expect(anonymous.initialize()).rejects.toThrow(ServerStartError);
      const unset = kit.direct(spec, {
        auth: { headers: { "x-api-key": { env: "M3_TEST_NOT_SET_ANYWHERE" } } },
      });
      await expect(unset.initialize()).rejects.toThrow(MissingSecret);
      await expect(unset.initialize()).rejects.toThrow(
        /M3_TEST_NOT_SET_ANYWHERE, which is not set/,
      );
      expect(() => kit.direct(spec, { auth: { bearer: token as never } })).toThrow(
        /plain strings are refused/,
      );
      expect(() => secretFromEnv("not a name")).toThrow(InvalidArgument);
    } finally {
      delete process.env.M3_TEST_MOCK_TOKEN;
    }
  });

  test("elicitation: rules used up in order, a round limit, a handler that throws", async () => {
    await using mock = mockServer({
      name: "asker",
      tools: [
        {
          name: "ask",
          inputSchema: { type: "object", properties: { times: { type: "number" } } },
          handler: async ({ times }, context) => {
            const answers: string[] = [];
            for (let round = 0; round < Number(times ?? 1); round++) {
              const answer = await context.elicit({
                mode: "form",
                message: `Question ${round + 1}`,
                requestedSchema: { type: "object", properties: { name: { type: "string" } } },
              });
              answers.push(
                answer.action + (answer.content ? `:${String(answer.content.name)}` : ""),
              );
            }
            return answers.join(",");
          },
        },
      ],
    });
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio(), {
      elicitation: {
        rules: [
          {
            when: { message: "Question 1" },
            answer: { action: "accept", content: { name: "Ada" } },
            times: 1,
          },
          { answer: { action: "decline" } },
        ],
        roundLimit: 3,
      },
    });
    const sequence = await client.callTool("ask", { times: 2 });
    expect(sequence.content).toEqual([{ type: "text", text: "accept:Ada,decline" }]);
    // Rule 0 is used up: the next Question 1 falls to rule 1.
    expect((await client.callTool("ask", { times: 1 })).content).toEqual([
      { type: "text", text: "decline" },
    ]);
    await expect(client.callTool("ask", { times: 5 })).rejects.toThrow(ElicitationRoundLimit);
    expect(client.serverRequests.map((entry) => entry.status)).toEqual([
      "answered",
      "answered",
      "answered",
      "answered",
      "answered",
      "answered",
      "round_limit",
    ]);
    expect(client.serverRequests[0]?.rule).toBe(0);
    // The mock's elicit() rejects with the client's error, and the mock turns that into a
    // JSON-RPC error for the call.
    await expect(
      client.callTool(
        "ask",
        {},
        {
          elicitation: {
            rules: [
              {
                answer: () => {
                  throw new Error("no keyboard");
                },
              },
            ],
          },
        },
      ),
    ).rejects.toThrow(
      /failed with JSON-RPC error -32603: jest-m3: the test's elicitation\/create handler threw: no keyboard/,
    );
    expect(client.serverRequests.at(-1)).toEqual(
      expect.objectContaining({
        status: "handler_failed",
        error: expect.stringContaining("no keyboard"),
      }),
    );
  });

  test("output validation: structuredContent against outputSchema, path by path", async () => {
    await using mock = mockServer({
      name: "quotes",
      tools: [
        {
          name: "quote",
          outputSchema: {
            type: "object",
            properties: { amount: { type: "number" }, currency: { type: "string" } },
            required: ["amount", "currency"],
            additionalProperties: false,
          },
          handler: () => ({ content: [], structuredContent: { amount: "nine", extra: 1 } }),
        },
      ],
    });
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio(), { validateSchemas: true });
    const error = await client.callTool("quote").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaValidationError);
    expect((error as SchemaValidationError).schema).toBe("outputSchema");
    expect((error as SchemaValidationError).issues).toEqual(
      expect.arrayContaining([
        { path: "/amount", message: "must be number" },
        { path: "/currency", message: "is required" },
        { path: "/extra", message: "is not allowed (the schema has additionalProperties: false)" },
      ]),
    );
    await expect(client.callTool("no-such-tool")).rejects.toThrow(/does not list this tool/);
  });

  test("bad definitions fail at once", () => {
    expect(() => mockServer({ name: "" })).toThrow(/name must be a non-empty string/);
    expect(() => mockServer({ name: "x", tools: [forecast, forecast] })).toThrow(/already defined/);
    expect(() => mockServer({ name: "x", tools: [{ name: "t" } as never] })).toThrow(
      /handler must be a function/,
    );
    expect(() =>
      mockServer({ name: "x", tools: [{ ...forecast, inputSchema: { type: "string" } }] }),
    ).toThrow(/type "object"/);
    expect(() => mockServer({ name: "x", pageSize: 0 })).toThrow(/pageSize/);
  });
});

describe("paging guard", () => {
  test("a cursor that repeats throws RepeatingCursor instead of looping", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const ok = kit.direct(paging());
    expect((await ok.listTools()).map((tool) => tool.name)).toEqual(["t0", "t1", "t2"]);
    const looping = kit.direct(paging("--repeat-cursor"));
    await expect(looping.listTools()).rejects.toThrow(RepeatingCursor);
    await expect(looping.listTools()).rejects.toThrow(
      /returned the cursor "same" again after 2 page/,
    );
  });
});

describe("withFaults", () => {
  test("delay, split and drop per tool and per call number", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(
      withFaults(faultServer(), {
        tools: {
          echo: { kind: "delay", ms: 300, onCalls: [1] },
          big: { kind: "split" },
          sleep: { kind: "drop" },
        },
      }),
      { timeoutMs: 1500 },
    );
    await client.initialize();
    const started = Date.now();
    expect(await client.callTool("echo", { text: "late" })).toEqual({
      content: [{ type: "text", text: "late" }],
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const quick = Date.now();
    await client.callTool("echo", { text: "on time" });
    expect(Date.now() - quick).toBeLessThan(280);
    const big = await client.callTool("big", { bytes: 5000 });
    expect((big.content[0] as { text: string }).text).toHaveLength(5000);
    await expect(client.callTool("sleep", { ms: 1 }, { timeoutMs: 500 })).rejects.toThrow(
      OperationTimeout,
    );
    expect(client.trace.toolCalls.map((call) => call.status)).toEqual([
      "success",
      "success",
      "success",
      "timed_out",
    ]);
  });

  test("hang: the request never reaches the server", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(withFaults(faultServer(), { tools: { echo: { kind: "hang" } } }), {
      timeoutMs: 400,
    });
    await expect(client.callTool("echo", { text: "x" })).rejects.toThrow(OperationTimeout);
    expect(await client.callTool("sleep", { ms: 1 })).toEqual({
      content: [{ type: "text", text: "slept" }],
    });
  });

  test("malformed and partial frames are recorded verbatim, the call times out", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const malformed = kit.direct(
      withFaults(faultServer(), { tools: { echo: { kind: "malformed" } } }),
      { timeoutMs: 400 },
    );
    await expect(malformed.callTool("echo", { text: "x" })).rejects.toThrow(OperationTimeout);
    expect(malformed.trace.messages.filter((entry) => entry.kind === "malformed")).toEqual([
      expect.objectContaining({ raw: expect.stringContaining("<<not json>>") }),
    ]);
    const partial = kit.direct(
      withFaults(faultServer(), { tools: { echo: { kind: "partial" } } }),
      { timeoutMs: 400 },
    );
    await expect(partial.callTool("echo", { text: "x" })).rejects.toThrow(OperationTimeout);
    // The next frame arrives glued to the half one: not JSON-RPC, kept as malformed.
    await expect(partial.callTool("sleep", { ms: 1 })).rejects.toThrow(OperationTimeout);
    expect(partial.trace.messages.some((entry) => entry.kind === "malformed")).toBe(true);
  });

  test("crash on a tool, and crash after N calls: transport errors with the reason", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const crashing = kit.direct(
      withFaults(faultServer(), { tools: { sleep: { kind: "crash", exitCode: 9 } } }),
    );
    await crashing.callTool("echo", { text: "fine" });
    const error = await crashing.callTool("sleep", { ms: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).message).toMatch(/exited \(code 9\)/);
    expect((error as TransportError).stderrTail).toContain("planned fault");

    const tired = kit.direct(withFaults(faultServer(), { crashAfterCalls: 2 }));
    await tired.callTool("echo", { text: "1" });
    await tired.callTool("echo", { text: "2" }).catch(() => undefined);
    await expect(tired.callTool("echo", { text: "3" })).rejects.toThrow(TransportError);
  });

  test("reorder: a held answer arrives after the next one", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(
      withFaults(faultServer(), { tools: { echo: { kind: "reorder", onCalls: [1] } } }),
    );
    await client.initialize();
    const [first, second] = await Promise.all([
      client.callTool("echo", { text: "first" }),
      client.callTool("sleep", { ms: 50 }),
    ]);
    expect(first.content).toEqual([{ type: "text", text: "first" }]);
    expect(second.content).toEqual([{ type: "text", text: "slept" }]);
    const answers = client.trace.messages
      .filter((entry) => entry.kind === "response")
      .map((entry) => (entry.message as { id: number }).id);
    const calls = client.trace.toolCalls.map((call) => call.jsonrpcId);
    expect(answers.slice(-2)).toEqual([calls[1], calls[0]]);
  });

  test("bad plans fail at once", () => {
    expect(() =>
      withFaults(faultServer(), { tools: { echo: { kind: "explode" } as never } }),
    ).toThrow(/kind must be one of/);
    expect(() => withFaults(faultServer(), { crashAfterCalls: 0 })).toThrow(/crashAfterCalls/);
    expect(() =>
      withFaults(faultServer(), { tools: { echo: { kind: "delay" } as never } }),
    ).toThrow(/ms ≥ 0/);
    expect(() => withFaults({ name: "h", url: "http://x" } as never, {})).toThrow(
      /stdio server spec/,
    );
  });
});

describe("record and replay", () => {
  test("a recording of server-everything replays as a server; a request it lacks is a clear error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "m3-recording-test-"));
    const file = join(dir, "everything.json");
    {
      await using kit = new MCPTestKit({ env: {} });
      const client = kit.direct(everything);
      await client.listTools();
      await client.callTool("echo", { message: "hello" });
      await client.callTool("get-sum", { a: 2, b: 3 });
      await client.callTool(
        "trigger-long-running-operation",
        { duration: 0.2, steps: 2 },
        { onProgress: () => undefined },
      );
      await client.close();
      await saveRecording(recordingFromTrace(client.finalTrace), file);
    }
    const recording = await loadRecording(file);
    expect(recording.server).toBe("everything");
    expect(recording.exchanges.map((exchange) => exchange.method)).toEqual([
      "initialize",
      "tools/list",
      "tools/call",
      "tools/call",
      "tools/call",
    ]);
    await using kit = new MCPTestKit({ env: {} });
    const replay = kit.direct(replayServer(file, { name: "everything-replay" }));
    expect((await replay.initialize()).serverInfo?.name).toBe("mcp-servers/everything");
    expect((await replay.listTools()).map((tool) => tool.name)).toContain("echo");
    expect(await replay.callTool("get-sum", { a: 2, b: 3 })).toEqual({
      content: [{ type: "text", text: "The sum of 2 and 3 is 5." }],
    });
    expect(await replay.callTool("echo", { message: "hello" })).toEqual({
      content: [{ type: "text", text: "Echo: hello" }],
    });
    const steps: number[] = [];
    await replay.callTool(
      "trigger-long-running-operation",
      { duration: 0.2, steps: 2 },
      { onProgress: (progress) => steps.push(progress.progress) },
    );
    expect(steps).toEqual([1, 2]);
    const missing = await replay
      .callTool("echo", { message: "never recorded" })
      .catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(ProtocolError);
    expect((missing as ProtocolError).message).toContain(
      'has no answer for tools/call {"arguments":{"message":"never recorded"},"name":"echo"}',
    );
    expect((missing as ProtocolError).data).toEqual(
      expect.objectContaining({ code: "M3_REPLAY_MISSING" }),
    );
  });

  test("bad recordings are refused clearly", async () => {
    expect(() => recordingFromTrace({ messages: [], toolCalls: [], events: [], gaps: [] })).toThrow(
      RecordingError,
    );
    await expect(loadRecording("/nonexistent/recording.json")).rejects.toThrow(/cannot read/);
    expect(() => replayServer({ version: 2 } as never)).toThrow(/not a jest-m3 recording/);
  });
});
