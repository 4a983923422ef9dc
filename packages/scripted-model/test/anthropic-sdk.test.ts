/**
 * The anthropic-messages dialect as the official Anthropic SDK sees it: streaming and not,
 * tool_use with input_json_delta, parallel tool calls, deferred tools loaded through
 * ToolSearch, count_tokens and the HEAD probe as side requests, and every fault.
 */
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { Script } from "@jest-m3/scripted-model";
import { faultScript, modelPerTest, parallelQuotes, QUOTE } from "./scripts";

const models = modelPerTest();

const QUOTE_TOOL = {
  name: "mcp__shipping__shipping_quote",
  description: "Quote shipping.",
  input_schema: { type: "object" as const, properties: {} },
};

async function start(script: Script) {
  const model = await models.start(script);
  const provider = model.providerFor("anthropic-messages");
  const client = new Anthropic({ baseURL: provider.baseUrl, apiKey: "dummy", maxRetries: 0 });
  return { model, client };
}

test("a streamed tool call, its result, and the reply that quotes it", async () => {
  const { client, model: m } = await start(QUOTE);
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "quote please" }];
  const stream = client.messages.stream({
    model: "scripted",
    max_tokens: 100,
    messages,
    tools: [QUOTE_TOOL],
  });
  const events: string[] = [];
  stream.on("streamEvent", (event) => events.push(event.type));
  const first = await stream.finalMessage();
  expect(first.stop_reason).toBe("tool_use");
  expect(events).toEqual(
    expect.arrayContaining(["message_start", "content_block_start", "content_block_delta"]),
  );
  expect(events.at(-1)).toBe("message_stop");
  const [use] = first.content;
  expect(use).toMatchObject({
    type: "tool_use",
    name: "mcp__shipping__shipping_quote",
    input: { weight_kg: 2, zone: "local" },
  });
  messages.push(
    { role: "assistant", content: first.content },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: (use as Anthropic.ToolUseBlock).id,
          content: '{"amount":9,"currency":"USD"}',
        },
      ],
    },
  );
  const second = await client.messages.create({
    model: "scripted",
    max_tokens: 100,
    messages,
    tools: [QUOTE_TOOL],
  });
  expect(second.stop_reason).toBe("end_turn");
  expect(second.content).toEqual([{ type: "text", text: "Shipping costs 9 USD." }]);
  expect(m.journal.entries.map((e) => [e.dialect, e.path, e.decision.kind])).toEqual([
    ["anthropic-messages", "/v1/messages", "call"],
    ["anthropic-messages", "/v1/messages", "reply"],
  ]);
  m.journal.assertNoProblems();
});

test("parallel calls are several tool_use blocks in one message", async () => {
  const { client } = await start(parallelQuotes());
  const message = await client.messages
    .stream({
      model: "scripted",
      max_tokens: 100,
      messages: [{ role: "user", content: "both" }],
      tools: [QUOTE_TOOL],
    })
    .finalMessage();
  expect(message.content.map((b) => (b as Anthropic.ToolUseBlock).input)).toEqual([
    { zone: "local" },
    { zone: "regional" },
  ]);
});

test("a deferred tool is loaded with ToolSearch select: first, then called", async () => {
  const { client, model: m } = await start(QUOTE);
  const deferredList =
    "The following deferred tools are now available via ToolSearch:\nWebFetch\nmcp__shipping__shipping_quote";
  const base = {
    model: "scripted",
    max_tokens: 100,
    tools: [
      { name: "ToolSearch", input_schema: { type: "object" as const, properties: {} } },
      { name: "Bash", input_schema: { type: "object" as const, properties: {} } },
    ],
  };
  const messages = [
    {
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>\ncontext\n</system-reminder>\n" },
        { type: "text", text: "quote please" },
      ],
    },
    { role: "system", content: [{ type: "text", text: deferredList }] },
  ] as unknown as Anthropic.MessageParam[];
  const search = await client.messages.create({ ...base, messages });
  expect(search.content[0]).toMatchObject({
    type: "tool_use",
    name: "ToolSearch",
    input: { query: "select:mcp__shipping__shipping_quote" },
  });
  messages.push({ role: "assistant", content: search.content }, {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: (search.content[0] as Anthropic.ToolUseBlock).id,
        content: [{ type: "tool_reference", tool_name: "mcp__shipping__shipping_quote" }],
      },
    ],
  } as unknown as Anthropic.MessageParam);
  const call = await client.messages.create({
    ...base,
    tools: [...base.tools, { ...QUOTE_TOOL, defer_loading: true } as Anthropic.Tool],
    messages,
  });
  expect(call.content[0]).toMatchObject({
    type: "tool_use",
    name: "mcp__shipping__shipping_quote",
    input: { weight_kg: 2, zone: "local" },
  });
  expect(m.journal.decisions.map((d) => d.kind)).toEqual(["tool_search", "call"]);
  expect(m.journal.entries[0]?.conversation).toMatchObject({ turn: 1, user: "quote please" });
});

test("a tool the request does not offer: the reply and the journal list what it offered", async () => {
  const { client, model: m } = await start({
    rules: [{ name: "weather", steps: [{ call: "weather:forecast" }] }],
  });
  const reply = await client.messages.create({
    model: "scripted",
    max_tokens: 100,
    messages: [{ role: "user", content: "forecast?" }],
    tools: [QUOTE_TOOL],
  });
  expect(reply.content[0]).toMatchObject({
    type: "text",
    text:
      "I cannot call weather:forecast: this request does not offer that tool. MCP tools offered: " +
      "shipping:shipping_quote. Tools offered, as the request names them: " +
      'mcp__shipping__shipping_quote. (scripted model, rule "weather" step 1)',
  });
  expect(m.journal.problems).toHaveLength(1);
});

test("count_tokens and the HEAD probe are side requests no rule mentions", async () => {
  const { client, model: m } = await start(QUOTE);
  const counted = await client.messages.countTokens({
    model: "scripted",
    messages: [{ role: "user", content: "how long is this?" }],
  });
  expect(counted.input_tokens).toBeGreaterThan(0);
  const probe = await fetch(m.url, { method: "HEAD" });
  expect(probe.status).toBe(200);
  // Claude Code adds ?beta=true to its requests.
  const beta = await fetch(`${m.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "scripted",
      max_tokens: 100,
      messages: [{ role: "user", content: "quote" }],
      tools: [QUOTE_TOOL],
    }),
  });
  expect(((await beta.json()) as Anthropic.Message).stop_reason).toBe("tool_use");
  expect(m.journal.entries.map((e) => [e.side, e.decision.kind])).toEqual([
    [true, "side"],
    [true, "side"],
    [false, "call"],
  ]);
  expect(m.journal.entries[2]?.path).toBe("/v1/messages?beta=true");
  expect(m.journal.decisions.map((d) => d.kind)).toEqual(["call"]);
  m.journal.assertNoProblems();
});

describe("faults", () => {
  const ask = (client: Anthropic, options: { signal?: AbortSignal } = {}) =>
    client.messages
      .stream(
        { model: "scripted", max_tokens: 100, messages: [{ role: "user", content: "hi" }] },
        options,
      )
      .finalMessage();

  test.each([
    [400, "invalid_request_error"],
    [401, "authentication_error"],
    [429, "rate_limit_error"],
    [500, "api_error"],
  ])("HTTP %d arrives as an APIError of type %s", async (status, type) => {
    const { client } = await start(faultScript({ http: status, message: "nope" }));
    const error = await ask(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).error).toMatchObject({
      type: "error",
      error: { type, message: "nope" },
    });
    if (status === 429) expect((error as APIError).headers?.get("retry-after")).toBe("1");
  });

  test("fail sends an error event mid-stream; non-streaming it is an HTTP 500", async () => {
    const { client } = await start(faultScript({ fail: "overloaded now" }));
    await expect(ask(client)).rejects.toThrow("overloaded now");
    const { client: again } = await start(faultScript({ fail: "overloaded now" }));
    const error = await again.messages
      .create({ model: "scripted", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((error as APIError).status).toBe(500);
  });

  test("cut ends the stream before message_stop, and the SDK fails", async () => {
    const { client } = await start(faultScript({ cut: true }));
    await expect(ask(client)).rejects.toThrow();
  });

  test("hang starts the stream and never finishes; the client gives up", async () => {
    const { client, model: m } = await start(faultScript({ hang: true }));
    await expect(ask(client, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(m.journal.decisions.map((d) => d.kind)).toEqual(["hang"]);
  });

  test("delay holds the answer back", async () => {
    const { client } = await start({ rules: [{ steps: [{ delay: 200 }, { reply: "late" }] }] });
    const started = Date.now();
    const message = await ask(client);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(message.content[0]).toMatchObject({ text: "late" });
  });
});
