// The examples of docs/direct.md, verbatim (packages/jest-m3/test/docs.test.ts checks it).
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

test("completions, templates and a subscription on server-everything", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything);

  const identity = await client.initialize();
  expect(identity.protocolVersion).toBe("2025-11-25");
  expect(identity.capabilities?.completions).toEqual({});

  const { completion } = await client.complete(
    { prompt: "completable-prompt" },
    { name: "department", value: "Eng" },
  );
  expect(completion.values).toEqual(["Engineering"]);
  // The MCP SDK's own shape works too: { ref, argument, context: { arguments } }.
  const names = await client.complete({
    ref: { type: "ref/prompt", name: "completable-prompt" },
    argument: { name: "name", value: "" },
    context: { arguments: { department: "Sales" } },
  });
  expect(names.completion.values).toEqual(["David", "Eve", "Frank"]);

  const templates = await client.listResourceTemplates();
  expect(templates.map((template) => template.uriTemplate)).toContain(
    "demo://resource/dynamic/text/{resourceId}",
  );
  const read = await client.readResource("demo://resource/dynamic/text/3");
  expect(read.contents[0]?.uri).toBe("demo://resource/dynamic/text/3");

  using updates = client.listen("notifications/resources/updated", { timeoutMs: 10_000 });
  await client.subscribeResource("demo://resource/static/document/architecture.md");
  await client.callTool("toggle-subscriber-updates");
  const update = await updates.next();
  expect(update.params.uri).toBe("demo://resource/static/document/architecture.md");
});

test("logging, progress and _meta", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything);

  using logs = client.listen("notifications/message", { timeoutMs: 10_000 });
  await client.setLoggingLevel("info");
  await client.subscribeResource("demo://resource/static/document/architecture.md");
  expect((await logs.next()).params.level).toBe("info");

  const steps: number[] = [];
  await client.callTool(
    "trigger-long-running-operation",
    { duration: 0.3, steps: 3 },
    { onProgress: (progress) => steps.push(progress.progress), meta: { requestedBy: "docs" } },
  );
  expect(steps).toEqual([1, 2, 3]);
  expect(
    client.notifications.filter((entry) => entry.method === "notifications/progress"),
  ).toHaveLength(3);
});

test("sampling and roots answered by the test", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything, {
    sampling: () => ({ model: "stub", role: "assistant", content: { type: "text", text: "42" } }),
    roots: [{ uri: "file:///workspace", name: "workspace" }],
  });
  const sampled = await client.callTool("trigger-sampling-request", { prompt: "meaning of life?" });
  expect(JSON.stringify(sampled.content)).toContain("42");
  const roots = await client.callTool("get-roots-list");
  expect(JSON.stringify(roots.content)).toContain("file:///workspace");
  expect(client.serverRequests.map((request) => request.method)).toContain(
    "sampling/createMessage",
  );
});

test("schema validation refuses bad arguments before sending", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything, { validateSchemas: true });
  await expect(client.callTool("get-structured-content", { location: "Paris" })).rejects.toThrow(
    'arguments/location: must be one of "New York", "Chicago", "Los Angeles"',
  );
  expect(client.trace.toolCalls).toEqual([]);
});
