// The examples of docs/testing-doubles.md, verbatim (packages/jest-m3/test/docs.test.ts checks it).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit, OperationTimeout, TransportError, expect, type StdioServer } from "jest-m3";
import {
  mockServer,
  recordingFromTrace,
  replayServer,
  saveRecording,
  withFaults,
} from "@jest-m3/core/testing";

const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

test("a mock server over stdio and HTTP", async () => {
  await using mock = mockServer({
    name: "weather",
    tools: [
      {
        name: "forecast",
        inputSchema: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
        },
        handler: ({ city }) => `Sunny in ${String(city)}`,
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {} });
  const overStdio = kit.direct(await mock.stdio());
  const overHttp = kit.direct(await mock.http());
  expect(await overStdio.callTool("forecast", { city: "Lisbon" })).toEqual({
    content: [{ type: "text", text: "Sunny in Lisbon" }],
  });
  expect(await overHttp.callTool("forecast", { city: "Oslo" })).toEqual({
    content: [{ type: "text", text: "Sunny in Oslo" }],
  });
  expect(mock.calls.map((call) => [call.transport, call.arguments])).toEqual([
    ["stdio", { city: "Lisbon" }],
    ["http", { city: "Oslo" }],
  ]);
});

test("faults injected into a real server", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const flaky = withFaults(everything, {
    tools: { echo: { kind: "hang", onCalls: [2] }, "get-sum": { kind: "crash" } },
  });
  const client = kit.direct(flaky, { timeoutMs: 1000 });
  expect(await client.callTool("echo", { message: "one" })).toEqual({
    content: [{ type: "text", text: "Echo: one" }],
  });
  await expect(client.callTool("echo", { message: "two" })).rejects.toThrow(OperationTimeout);
  await expect(client.callTool("get-sum", { a: 1, b: 2 })).rejects.toThrow(TransportError);
  expect(client.trace.toolCalls.map((call) => call.status)).toEqual([
    "success",
    "timed_out",
    "transport_error",
  ]);
});

test("record a real server, replay it as a server", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "recordings-")), "everything.json");
  {
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(everything);
    await client.callTool("get-sum", { a: 2, b: 3 });
    await client.close();
    await saveRecording(recordingFromTrace(client.finalTrace), file);
  }
  await using kit = new MCPTestKit({ env: {} });
  const replay = kit.direct(replayServer(file));
  expect(await replay.callTool("get-sum", { a: 2, b: 3 })).toEqual({
    content: [{ type: "text", text: "The sum of 2 and 3 is 5." }],
  });
  await expect(replay.callTool("get-sum", { a: 1, b: 1 })).rejects.toThrow(
    /the recording of "everything" has no answer/,
  );
});

test("a mock server's prompts", async () => {
  await using mock = mockServer({
    name: "writer",
    tools: [{ name: "publish", handler: () => "published" }],
    prompts: [
      {
        name: "greet",
        description: "Greets someone",
        arguments: [{ name: "who", required: true }],
        handler: ({ who }) => `Say hello to ${who}.`,
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {} });
  for (const server of [await mock.stdio(), await mock.http()]) {
    const client = kit.direct(server);
    expect(await client.listPrompts()).toEqual([
      {
        name: "greet",
        description: "Greets someone",
        arguments: [{ name: "who", required: true }],
      },
    ]);
    expect(await client.getPrompt("greet", { who: "Ada" })).toEqual({
      description: "Greets someone",
      messages: [{ role: "user", content: { type: "text", text: "Say hello to Ada." } }],
    });
    await expect(client.getPrompt("greet")).rejects.toThrow("prompt greet needs argument who");
  }
  expect(mock.prompts.map((get) => [get.transport, get.error ?? "ok"])).toEqual([
    ["stdio", "ok"],
    ["stdio", "mock server: prompt greet needs argument who"],
    ["http", "ok"],
    ["http", "mock server: prompt greet needs argument who"],
  ]);
});
