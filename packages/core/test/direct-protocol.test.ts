import {
  ElicitationUnexpected,
  InvalidArgument,
  MCPTestKit,
  NotificationTimeout,
  SchemaValidationError,
  type StdioServer,
} from "@jest-m3/core";
import { closeAndExpectNoProcessLeft } from "./support/processes";

/** @modelcontextprotocol/server-everything, a real third-party server, over stdio. */
const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};
const ARCHITECTURE = "demo://resource/static/document/architecture.md";

describe("the whole protocol against server-everything", () => {
  const kit = new MCPTestKit({ env: {} });
  afterAll(async () => {
    await closeAndExpectNoProcessLeft(kit);
  });

  test("initialize: negotiated version, capabilities and instructions; a pinned revision", async () => {
    const latest = kit.direct(everything);
    const identity = await latest.initialize();
    expect(identity.protocolVersion).toBe("2025-11-25");
    expect(identity.requestedProtocolVersion).toBe("2025-11-25");
    expect(identity.capabilities).toEqual(
      expect.objectContaining({
        logging: {},
        completions: {},
        resources: expect.objectContaining({ subscribe: true }),
      }),
    );
    expect(identity.instructions).toEqual(expect.any(String));
    await latest.close();

    const pinned = kit.direct(everything, { protocolVersion: "2025-06-18" });
    expect((await pinned.initialize()).protocolVersion).toBe("2025-06-18");
    const sent = pinned.trace.messages.find(
      (entry) =>
        entry.message && "method" in entry.message && entry.message.method === "initialize",
    );
    expect(sent?.message).toEqual(
      expect.objectContaining({
        params: expect.objectContaining({ protocolVersion: "2025-06-18" }),
      }),
    );
    await pinned.close();
  });

  test("completions for a prompt argument, with context", async () => {
    const client = kit.direct(everything);
    const { completion } = await client.complete(
      { prompt: "completable-prompt" },
      { name: "department", value: "Eng" },
    );
    expect(completion.values).toEqual(["Engineering"]);
    const names = await client.complete(
      { prompt: "completable-prompt" },
      { name: "name", value: "" },
      { context: { department: "Sales" } },
    );
    expect(names.completion.values).toEqual(["David", "Eve", "Frank"]);
    await client.close();
  });

  test("completions in the MCP SDK's own shape ({ ref, argument, context }) send what the kit's shape sends", async () => {
    const client = kit.direct(everything);
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "Eng" },
    });
    expect(completion.values).toEqual(["Engineering"]);
    const names = await client.complete(
      {
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Sales" } },
      },
      { timeoutMs: 10_000 },
    );
    expect(names.completion.values).toEqual(["David", "Eve", "Frank"]);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
      argument: { name: "resourceId", value: "7" },
    });
    expect(ids.completion.values).toEqual(["7"]);
    await client.complete(
      { prompt: "completable-prompt" },
      { name: "name", value: "" },
      {
        context: { department: "Sales" },
      },
    );
    // On the wire: the SDK shape and the kit's shape are the same request.
    const sent = client.trace.messages.flatMap((entry) =>
      entry.message && "method" in entry.message && entry.message.method === "completion/complete"
        ? [entry.message.params]
        : [],
    );
    expect(sent).toEqual([
      {
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "department", value: "Eng" },
      },
      {
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Sales" } },
      },
      {
        ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value: "7" },
      },
      {
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Sales" } },
      },
    ]);
    await expect(
      client.complete({
        ref: { type: "ref/tool", name: "x" },
        argument: { name: "a", value: "" },
      } as never),
    ).rejects.toThrow(/ref\.type must be "ref\/prompt" or "ref\/resource", got "ref\/tool"/);
    await expect(
      client.complete({
        ref: { type: "ref/resource" },
        argument: { name: "a", value: "" },
      } as never),
    ).rejects.toThrow(/"ref\/resource" ref needs uri: string/);
    await client.close();
  });

  test("resource templates: listed, completed, and read through a URI made from one", async () => {
    const client = kit.direct(everything);
    const templates = await client.listResourceTemplates();
    const text = templates.find(
      (template) => template.uriTemplate === "demo://resource/dynamic/text/{resourceId}",
    );
    expect(text).toBeDefined();
    const ids = await client.complete(
      { resourceTemplate: text!.uriTemplate },
      { name: "resourceId", value: "7" },
    );
    expect(ids.completion.values).toEqual(["7"]);
    const read = await client.readResource("demo://resource/dynamic/text/7");
    expect(read.contents[0]?.uri).toBe("demo://resource/dynamic/text/7");
    const page = await client.listResourceTemplatesPage();
    expect(page.resourceTemplates.length).toBeGreaterThan(0);
    expect(page.nextCursor).toBeUndefined();
    await client.close();
  });

  test("subscriptions: updates arrive on a listener; a wait past the timeout fails clearly", async () => {
    const client = kit.direct(everything);
    using updates = client.listen("notifications/resources/updated", { timeoutMs: 10_000 });
    await client.subscribeResource(ARCHITECTURE);
    await client.callTool("toggle-subscriber-updates");
    const update = await updates.next();
    expect(update.params).toEqual({ uri: ARCHITECTURE });
    await client.unsubscribeResource(ARCHITECTURE);
    const quiet = client.listen("notifications/tools/list_changed", { timeoutMs: 200 });
    await expect(quiet.next()).rejects.toThrow(NotificationTimeout);
    await expect(quiet.next()).rejects.toThrow(
      /no notifications\/tools\/list_changed arrived within 200 ms/,
    );
    quiet.close();
    await client.close();
  });

  test("logging: setLevel, and the server's log messages recorded", async () => {
    const client = kit.direct(everything);
    using logs = client.listen("notifications/message", { timeoutMs: 10_000 });
    await client.setLoggingLevel("info");
    await client.subscribeResource(ARCHITECTURE); // the server logs each subscription at info
    const log = await logs.next();
    expect(log.params).toEqual(
      expect.objectContaining({ level: "info", data: expect.stringContaining(ARCHITECTURE) }),
    );
    expect(client.logMessages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: "info", data: expect.stringContaining("Subscribe") }),
      ]),
    );
    expect(() => client.setLoggingLevel("loud" as never)).rejects.toThrow(InvalidArgument);
    await client.close();
  });

  test("progress on a long call: the callback hears every step, the trace has them", async () => {
    const client = kit.direct(everything);
    const steps: Array<[number, number | undefined]> = [];
    const result = await client.callTool(
      "trigger-long-running-operation",
      { duration: 0.6, steps: 3 },
      {
        onProgress: (progress) => steps.push([progress.progress, progress.total]),
        meta: { trace: "t-1" },
      },
    );
    expect(result.isError).toBeFalsy();
    expect(steps).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(
      client.notifications.filter((entry) => entry.method === "notifications/progress"),
    ).toHaveLength(3);
    const sent = client.trace.messages.find(
      (entry) =>
        entry.message && "method" in entry.message && entry.message.method === "tools/call",
    );
    expect(sent?.message).toEqual(
      expect.objectContaining({
        params: expect.objectContaining({
          _meta: expect.objectContaining({ trace: "t-1", progressToken: expect.anything() }),
        }),
      }),
    );
    await client.close();
  });

  test("sampling: the test's handler answers createMessage", async () => {
    const seen: unknown[] = [];
    const client = kit.direct(everything, {
      sampling: (params) => {
        seen.push(params.messages);
        return {
          model: "test-model",
          role: "assistant",
          content: { type: "text", text: "forty-two" },
        };
      },
    });
    const result = await client.callTool("trigger-sampling-request", {
      prompt: "meaning of life?",
      maxTokens: 5,
    });
    expect(JSON.stringify(result.content)).toContain("forty-two");
    expect(JSON.stringify(seen)).toContain("meaning of life?");
    expect(client.serverRequests).toEqual([
      expect.objectContaining({ method: "sampling/createMessage", status: "answered" }),
    ]);
    await client.close();
  });

  test("sampling advertised without a handler: a recorded, clear error, never a hang", async () => {
    const client = kit.direct(everything, { capabilities: { sampling: {} }, timeoutMs: 10_000 });
    const result = await client.callTool("trigger-sampling-request", { prompt: "hi" });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("no handler for it");
    expect(client.serverRequests).toEqual([
      expect.objectContaining({
        method: "sampling/createMessage",
        status: "unhandled",
        error: expect.stringContaining("kit.direct(server, { sampling: ... })"),
      }),
    ]);
    await client.close();
  });

  test("roots: the server lists them; a change is notified and listed again", async () => {
    const client = kit.direct(everything, { roots: [{ uri: "file:///projects/a", name: "a" }] });
    const first = await client.callTool("get-roots-list");
    expect(JSON.stringify(first.content)).toContain("file:///projects/a");
    using logs = client.listen(
      (entry) =>
        entry.method === "notifications/message" &&
        String(entry.params.data).includes("Roots updated"),
      { timeoutMs: 10_000 },
    );
    await client.setRoots([
      { uri: "file:///projects/a", name: "a" },
      { uri: "file:///projects/b", name: "b" },
    ]);
    expect(String((await logs.next()).params.data)).toContain("2 root(s)");
    expect(
      client.serverRequests.filter((entry) => entry.method === "roots/list").length,
    ).toBeGreaterThanOrEqual(2);
    await client.close();
  });

  test("elicitation (form): accepted with content from the plan, recorded in the trace", async () => {
    const client = kit.direct(everything, {
      elicitation: {
        rules: [
          {
            when: { message: "inputs" },
            answer: { action: "accept", content: { name: "Ada", check: true } },
          },
        ],
      },
    });
    const result = await client.callTool("trigger-elicitation-request");
    expect(JSON.stringify(result.content)).toContain("Name: Ada");
    expect(client.elicitations).toEqual([
      expect.objectContaining({
        mode: "form",
        action: "accept",
        content: { name: "Ada", check: true },
      }),
    ]);
    // A per-call plan overrides the client's.
    const declined = await client.callTool(
      "trigger-elicitation-request",
      {},
      { elicitation: { action: "decline" } },
    );
    expect(JSON.stringify(declined.content)).toContain("declined");
    const cancelled = await client.callTool(
      "trigger-elicitation-request",
      {},
      {
        elicitation: { rules: [{ answer: () => ({ action: "cancel" }) }] },
      },
    );
    expect(JSON.stringify(cancelled.content)).toContain("cancelled");
    expect(client.elicitations.map((entry) => entry.action)).toEqual([
      "accept",
      "decline",
      "cancel",
    ]);
    await client.close();
  });

  test("elicitation (URL mode) matched by mode and url", async () => {
    const client = kit.direct(everything, {
      elicitation: {
        rules: [{ when: { mode: "url", url: /example\.com/ }, answer: { action: "accept" } }],
      },
    });
    const result = await client.callTool("trigger-url-elicitation", {
      url: "https://example.com/login",
    });
    expect(JSON.stringify(result.content)).toContain("completed the URL elicitation");
    expect(client.elicitations).toEqual([
      expect.objectContaining({ mode: "url", url: "https://example.com/login", action: "accept" }),
    ]);
    await client.close();
  });

  test("elicitation no rule expects: the server gets an error, the call throws ElicitationUnexpected", async () => {
    const client = kit.direct(everything, {
      elicitation: { rules: [{ when: { mode: "url" }, answer: { action: "accept" } }] },
    });
    await expect(client.callTool("trigger-elicitation-request")).rejects.toThrow(
      ElicitationUnexpected,
    );
    expect(client.elicitations).toEqual([
      expect.objectContaining({ action: "error", mode: "form" }),
    ]);
    expect(client.serverRequests).toEqual([expect.objectContaining({ status: "unexpected" })]);
    await client.close();
  });

  test("elicitation with no plan at all: unhandled, recorded, no hang", async () => {
    const client = kit.direct(everything, { capabilities: { elicitation: { form: {} } } });
    const result = await client.callTool("trigger-elicitation-request");
    expect(result.isError).toBe(true);
    expect(client.serverRequests).toEqual([
      expect.objectContaining({ method: "elicitation/create", status: "unhandled" }),
    ]);
    await client.close();
  });

  test("schema validation: bad arguments are refused before sending, with the path", async () => {
    const client = kit.direct(everything, { validateSchemas: true });
    const error = await client
      .callTool("get-structured-content", { location: "Paris" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaValidationError);
    expect((error as SchemaValidationError).issues).toEqual([
      { path: "/location", message: 'must be one of "New York", "Chicago", "Los Angeles"' },
    ]);
    expect((error as Error).message).toContain("arguments/location: must be one of");
    expect(client.trace.toolCalls).toEqual([]); // nothing was sent
    const ok = await client.callTool("get-structured-content", { location: "Chicago" });
    expect(ok.structuredContent).toEqual(expect.objectContaining({ temperature: 36 }));
    // Off per call: sent anyway; the server itself refuses it.
    const sent = await client.callTool(
      "get-structured-content",
      { location: "Paris" },
      { validate: false },
    );
    expect(sent.isError).toBe(true);
    await client.close();
  });

  test("bad input to the new APIs fails before anything is spawned", async () => {
    expect(() => kit.direct(everything, { protocolVersion: "1999-01-01" })).toThrow(
      /not a revision the MCP SDK speaks/,
    );
    expect(() => kit.direct(everything, { elicitation: { action: "maybe" } as never })).toThrow(
      /"accept", "decline" or "cancel"/,
    );
    expect(() =>
      kit.direct(everything, {
        elicitation: {
          rules: [{ when: { colour: "red" }, answer: { action: "cancel" } }],
        } as never,
      }),
    ).toThrow(/unknown key "colour"/);
    expect(() => kit.direct(everything, { elicitation: { rules: [], roundLimit: 0 } })).toThrow(
      /roundLimit/,
    );
    expect(() => kit.direct(everything, { auth: { bearer: { env: "TOKEN" } } })).toThrow(
      /auth is for HTTP servers/,
    );
    expect(() => kit.direct(everything, { timeoutMs: -1 })).toThrow(InvalidArgument);
    const client = kit.direct(everything);
    await expect(client.complete({} as never, { name: "a", value: "" })).rejects.toThrow(
      /ref must be/,
    );
    expect(() => client.listen(42 as never)).toThrow(/filter must be/);
    expect(() => client.listen("x", { timeoutMs: 0 })).toThrow(/timeoutMs/);
    await expect(client.callTool("echo", [] as never)).rejects.toThrow(
      /arguments must be an object/,
    );
    await expect(client.callTool("echo", {}, { meta: "x" as never })).rejects.toThrow(
      /meta must be an object/,
    );
    await expect(client.sendRootsListChanged()).rejects.toThrow(/does not advertise roots/);
    await expect(client.listToolsPage(7 as never)).rejects.toThrow(/cursor must be a string/);
    expect(client.pid).toBeUndefined(); // none of it started the server
    await client.close();
  });
});
