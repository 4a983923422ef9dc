/**
 * Usage a script sets comes back exactly, as each vendor's own SDK reads it, in every
 * dialect, streamed and not: a step's `usage`, the script's `usage` for the rest (side
 * answers included), an estimate without either; the journal records what was set; a
 * malformed usage is refused before anything listens.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  InvalidScript,
  startScriptedModel,
  type Script,
  type ScriptedModel,
  type ScriptedUsage,
} from "@jest-m3/scripted-model";
import { geminiClient } from "./gemini-client";

const STEP: ScriptedUsage = {
  inputTokens: 1234,
  outputTokens: 56,
  cachedInputTokens: 1000,
  reasoningTokens: 6,
};
const DEFAULT: ScriptedUsage = { inputTokens: 77, outputTokens: 8 };
const SCRIPT: Script = {
  usage: DEFAULT,
  rules: [
    { name: "set", when: { user: /set/ }, steps: [{ reply: "Set.", usage: STEP }] },
    { name: "default", when: { user: /default/ }, steps: [{ reply: "Default." }] },
  ],
};

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel(SCRIPT);
});
afterAll(() => model.close());

test("Responses (streamed): input, cached, output, reasoning as set; the script's default", async () => {
  const client = new OpenAI({ baseURL: model.provider.baseUrl, apiKey: "dummy", maxRetries: 0 });
  const ask = (text: string) =>
    client.responses
      .stream({ model: "m1", input: [{ role: "user", content: text }] })
      .finalResponse();
  const set = await ask("set");
  expect(set.usage).toMatchObject({
    input_tokens: 1234,
    input_tokens_details: { cached_tokens: 1000 },
    output_tokens: 56,
    output_tokens_details: { reasoning_tokens: 6 },
    total_tokens: 1290,
  });
  const other = await ask("default");
  expect(other.usage).toMatchObject({ input_tokens: 77, output_tokens: 8, total_tokens: 85 });
});

test.each([false, true])("Chat Completions (stream %s): the numbers as set", async (stream) => {
  const provider = model.providerFor("chat-completions");
  const client = new OpenAI({ baseURL: provider.baseUrl, apiKey: "dummy", maxRetries: 0 });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: "user", content: "set" },
  ];
  const completion = stream
    ? await client.chat.completions
        .stream({ model: "m1", messages, stream_options: { include_usage: true } })
        .finalChatCompletion()
    : await client.chat.completions.create({ model: "m1", messages });
  expect(completion.usage).toMatchObject({
    prompt_tokens: 1234,
    completion_tokens: 56,
    total_tokens: 1290,
    prompt_tokens_details: { cached_tokens: 1000 },
    completion_tokens_details: { reasoning_tokens: 6 },
  });
});

test.each([false, true])(
  "Anthropic Messages (stream %s): uncached + cache read",
  async (stream) => {
    const provider = model.providerFor("anthropic-messages");
    const client = new Anthropic({ baseURL: provider.baseUrl, apiKey: "dummy", maxRetries: 0 });
    const params = {
      model: "m1",
      max_tokens: 100,
      messages: [{ role: "user" as const, content: "set" }],
    };
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    // Anthropic's input_tokens is the uncached part; the whole prompt is 1234.
    expect(message.usage).toMatchObject({
      input_tokens: 234,
      cache_read_input_tokens: 1000,
      output_tokens: 56,
    });
  },
);

test.each([false, true])("Gemini (stream %s): candidates + thoughts, cached", async (stream) => {
  const ai = geminiClient(model);
  const request = { model: "scripted-1", contents: [{ role: "user", parts: [{ text: "set" }] }] };
  let usage;
  if (stream) {
    for await (const chunk of await ai.models.generateContentStream(request)) {
      usage = chunk.usageMetadata;
    }
  } else {
    usage = (await ai.models.generateContent(request)).usageMetadata;
  }
  expect(usage).toMatchObject({
    promptTokenCount: 1234,
    cachedContentTokenCount: 1000,
    candidatesTokenCount: 50,
    thoughtsTokenCount: 6,
    totalTokenCount: 1290,
  });
});

test("the journal records the usage each answer reported as set", () => {
  const main = model.journal.entries.filter((entry) => !entry.side);
  expect(main.length).toBeGreaterThanOrEqual(8);
  for (const entry of main) {
    const body = JSON.stringify(entry.body);
    expect(entry.usage).toEqual(body.includes("default") ? DEFAULT : STEP);
  }
});

test("without a usage anywhere, answers report an estimate and the journal none", async () => {
  await using plain = await startScriptedModel({ rules: [{ steps: [{ reply: "Hi." }] }] });
  const client = new OpenAI({ baseURL: plain.provider.baseUrl, apiKey: "dummy", maxRetries: 0 });
  const answer = await client.responses
    .stream({ model: "m1", input: [{ role: "user", content: "hello" }] })
    .finalResponse();
  expect(answer.usage?.input_tokens).toBeGreaterThan(0);
  expect(answer.usage?.input_tokens).not.toBe(DEFAULT.inputTokens);
  expect(plain.journal.entries[0]?.usage).toBeUndefined();
});

test.each([
  [{ reply: "x", usage: { inputTokens: 1 } }, /"outputTokens" must be a whole number/],
  [{ reply: "x", usage: { inputTokens: -1, outputTokens: 1 } }, /"inputTokens" must be a whole/],
  [{ reply: "x", usage: { inputTokens: 5, outputTokens: 1, cached: 1 } }, /unknown field "cached"/],
  [
    { reply: "x", usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: 6 } },
    /"cachedInputTokens" \(6\) is part of "inputTokens" \(5\)/,
  ],
  [
    { reply: "x", usage: { inputTokens: 5, outputTokens: 1, reasoningTokens: 2 } },
    /"reasoningTokens" \(2\) is part of "outputTokens" \(1\)/,
  ],
  [
    { parallel: [{ call: "a:b", usage: { inputTokens: 1, outputTokens: 1 } }] },
    /give "usage" on the parallel step/,
  ],
])("a malformed usage is refused, naming the step: %j", async (step, message) => {
  const script = { rules: [{ name: "r", steps: [step] }] } as unknown as Script;
  await expect(startScriptedModel(script)).rejects.toThrow(InvalidScript);
  await expect(startScriptedModel(script)).rejects.toThrow(message);
  await expect(startScriptedModel(script)).rejects.toThrow(/rule "r" step 1/);
});
