/**
 * The chat-completions dialect as the official OpenAI SDK sees it: streaming with tool_calls
 * deltas and not, parallel tool calls, the model list and a title request as side requests,
 * and every fault.
 */
import OpenAI, { APIError } from "openai";
import type { Script } from "@jest-m3/scripted-model";
import { faultScript, modelPerTest, parallelQuotes, QUOTE } from "./scripts";

const models = modelPerTest();

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: "function",
    function: { name: "shipping_shipping_quote", description: "Quote.", parameters: {} },
  },
];

async function start(script: Script) {
  const model = await models.start(script);
  const provider = model.providerFor("chat-completions");
  const client = new OpenAI({ baseURL: provider.baseUrl, apiKey: "dummy", maxRetries: 0 });
  return { model, client };
}

test("streamed tool_calls deltas, the tool result, and the reply that quotes it", async () => {
  const { client, model: m } = await start(QUOTE);
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "quote please" },
  ];
  const stream = client.chat.completions.stream({
    model: "m1",
    messages,
    tools: TOOLS,
    stream_options: { include_usage: true },
  });
  const first = await stream.finalChatCompletion();
  const [choice] = first.choices;
  expect(choice?.finish_reason).toBe("tool_calls");
  const call = choice?.message
    .tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
  expect(call.function).toEqual({
    name: "shipping_shipping_quote",
    arguments: '{"weight_kg":2,"zone":"local"}',
  });
  expect(first.usage?.total_tokens).toBeGreaterThan(0);
  messages.push(choice?.message as OpenAI.Chat.Completions.ChatCompletionMessageParam, {
    role: "tool",
    tool_call_id: call.id,
    content: '{"amount":9,"currency":"USD"}',
  });
  const second = await client.chat.completions.create({ model: "m1", messages, tools: TOOLS });
  expect(second.choices[0]?.message.content).toBe("Shipping costs 9 USD.");
  expect(second.choices[0]?.finish_reason).toBe("stop");
  expect(m.journal.entries.map((e) => [e.dialect, e.path, e.decision.kind])).toEqual([
    ["chat-completions", "/v1/chat/completions", "call"],
    ["chat-completions", "/v1/chat/completions", "reply"],
  ]);
  expect(m.journal.entries[1]?.conversation?.turnResults[0]).toMatchObject({
    server: "shipping",
    tool: "shipping_quote",
    value: { amount: 9, currency: "USD" },
  });
  m.journal.assertNoProblems();
});

test("parallel calls stream as two indexed tool_calls", async () => {
  const { client } = await start(parallelQuotes());
  const done = await client.chat.completions
    .stream({ model: "m1", messages: [{ role: "user", content: "both" }], tools: TOOLS })
    .finalChatCompletion();
  const calls = done.choices[0]?.message.tool_calls ?? [];
  expect(
    calls.map(
      (c) =>
        (c as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall).function.arguments,
    ),
  ).toEqual(['{"zone":"local"}', '{"zone":"regional"}']);
});

test("the model list and a title request are side requests", async () => {
  const { client, model: m } = await start(QUOTE);
  const models = await client.models.list();
  expect(models.data.length).toBeGreaterThan(0);
  const title = await client.chat.completions.create({
    model: "m1",
    messages: [
      { role: "system", content: "You are a title generator. Output only a short title." },
      { role: "user", content: "Please quote 2 kg local shipping for me" },
    ],
  });
  expect(title.choices[0]?.message.content).toBe("Please quote 2 kg local shipping");
  expect(m.journal.entries.map((e) => [e.side, e.decision])).toEqual([
    [true, { kind: "side", purpose: "models", text: "" }],
    [true, { kind: "side", purpose: "title", text: "Please quote 2 kg local shipping" }],
  ]);
  m.journal.assertNoProblems();
});

describe("faults", () => {
  const ask = async (client: OpenAI, signal?: AbortSignal) => {
    const stream = await client.chat.completions.create(
      { model: "m1", messages: [{ role: "user", content: "hi" }], stream: true },
      { signal },
    );
    let text = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    return { text, finish };
  };

  test.each([400, 401, 429, 500])("HTTP %d arrives as an APIError", async (status) => {
    const { client } = await start(faultScript({ http: status, message: "nope" }));
    const error = await ask(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).message).toContain("nope");
    if (status === 429) expect((error as APIError).headers?.get("retry-after")).toBe("1");
  });

  test("fail is an error chunk mid-stream; non-streaming it is an HTTP 500", async () => {
    const { client } = await start(faultScript({ fail: "overloaded now" }));
    await expect(ask(client)).rejects.toThrow("overloaded now");
    const { client: again } = await start(faultScript({ fail: "overloaded now" }));
    const error = await again.chat.completions
      .create({ model: "m1", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((error as APIError).status).toBe(500);
  });

  test("cut stops the stream before finish_reason and [DONE], and the SDK fails", async () => {
    const { client } = await start(faultScript({ cut: true }));
    await expect(ask(client)).rejects.toThrow();
  });

  test("hang never finishes; the client gives up (the SDK ends an aborted stream quietly)", async () => {
    const { client, model: m } = await start(faultScript({ hang: true }));
    const started = Date.now();
    await expect(ask(client, AbortSignal.timeout(300))).resolves.toEqual({
      text: "",
      finish: null,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(m.journal.decisions.map((d) => d.kind)).toEqual(["hang"]);
  });

  test("delay holds the answer back", async () => {
    const { client } = await start({ rules: [{ steps: [{ delay: 200 }, { reply: "late" }] }] });
    const started = Date.now();
    expect(await ask(client)).toEqual({ text: "late", finish: "stop" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
