/**
 * The gemini dialect as the official Google Gen AI SDK sees it: generateContent and
 * generateContentStream, functionCall / functionResponse parts, parallel calls, JSON mode and
 * countTokens as side requests, and every fault.
 */
import type * as GenAI from "@google/genai" with { "resolution-mode": "import" };

type Content = GenAI.Content;
type GoogleGenAI = GenAI.GoogleGenAI;
// The SDK's types are ESM-only; at run time its CommonJS build is what Jest loads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ApiError } = require("@google/genai") as typeof GenAI;
import type { Script } from "@jest-m3/scripted-model";
import { geminiClient } from "./gemini-client";
import { faultScript, modelPerTest, parallelQuotes, QUOTE } from "./scripts";

const models = modelPerTest();

const TOOLS = [
  {
    functionDeclarations: [
      { name: "mcp_shipping_shipping_quote", description: "Quote shipping.", parameters: {} },
    ],
  },
];

async function start(script: Script) {
  const model = await models.start(script);
  return { model, ai: geminiClient(model) };
}

test("a streamed functionCall, its functionResponse, and the reply that quotes it", async () => {
  const { ai, model: m } = await start(QUOTE);
  const contents: Content[] = [{ role: "user", parts: [{ text: "quote please" }] }];
  const parts = [];
  for await (const chunk of await ai.models.generateContentStream({
    model: "scripted-1",
    contents,
    config: { tools: TOOLS },
  })) {
    parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
  }
  expect(parts).toEqual([
    {
      functionCall: {
        id: "call_m3_t1_r0_s0_0",
        name: "mcp_shipping_shipping_quote",
        args: { weight_kg: 2, zone: "local" },
      },
    },
  ]);
  contents.push(
    { role: "model", parts },
    {
      role: "user",
      parts: [
        {
          functionResponse: {
            id: "call_m3_t1_r0_s0_0",
            name: "mcp_shipping_shipping_quote",
            response: { output: '{"amount":9,"currency":"USD"}' },
          },
        },
      ],
    },
  );
  const reply = await ai.models.generateContent({
    model: "scripted-1",
    contents,
    config: { tools: TOOLS },
  });
  expect(reply.text).toBe("Shipping costs 9 USD.");
  expect(m.journal.entries.map((e) => [e.dialect, e.path, e.decision.kind])).toEqual([
    ["gemini", "/v1beta/models/scripted-1:streamGenerateContent?alt=sse", "call"],
    ["gemini", "/v1beta/models/scripted-1:generateContent", "reply"],
  ]);
  m.journal.assertNoProblems();
});

test("parallel calls are several functionCall parts; results pair by name when ids are absent", async () => {
  const { ai, model: m } = await start(
    parallelQuotes({ reply: "{{results.0.amount}} and {{results.1.amount}}" }),
  );
  const contents: Content[] = [{ role: "user", parts: [{ text: "both" }] }];
  const first = await ai.models.generateContent({ model: "m", contents, config: { tools: TOOLS } });
  expect(first.functionCalls?.map((c) => c.args)).toEqual([
    { zone: "local" },
    { zone: "regional" },
  ]);
  contents.push(first.candidates?.[0]?.content as Content, {
    role: "user",
    parts: [9, 15.5].map((amount) => ({
      functionResponse: {
        name: "mcp_shipping_shipping_quote",
        response: { output: JSON.stringify({ amount }) },
      },
    })),
  });
  const second = await ai.models.generateContent({
    model: "m",
    contents,
    config: { tools: TOOLS },
  });
  expect(second.text).toBe("9 and 15.5");
  m.journal.assertNoProblems();
});

test("JSON mode (a router or classifier) and countTokens are side requests", async () => {
  const { ai, model: m } = await start(QUOTE);
  const routed = await ai.models.generateContent({
    model: "gemini-flash-lite",
    contents: [{ role: "user", parts: [{ text: "route this" }] }],
    config: {
      responseMimeType: "application/json",
      responseJsonSchema: {
        type: "object",
        properties: {
          complexity_reasoning: { type: "string" },
          complexity_score: { type: "integer", minimum: 1, maximum: 100 },
        },
        required: ["complexity_reasoning", "complexity_score"],
      },
    },
  });
  expect(JSON.parse(routed.text ?? "")).toEqual({
    complexity_reasoning: expect.any(String),
    complexity_score: 1,
  });
  const counted = await ai.models.countTokens({ model: "m", contents: "how long?" });
  expect(counted.totalTokens).toBeGreaterThan(0);
  // Gemini CLI's session summary: a tool-less request with its own prompt.
  const summary = await ai.models.generateContent({
    model: "m",
    contents: "Summarize the user's primary intent or goal in this conversation in ONE sentence.",
  });
  expect(summary.text).toBe("A scripted conversation");
  expect(m.journal.entries.map((e) => [e.side, e.decision.kind])).toEqual([
    [true, "side"],
    [true, "side"],
    [true, "side"],
  ]);
  expect(m.journal.decisions).toEqual([]);
  m.journal.assertNoProblems();
});

test("a tool the request does not offer: the reply lists what it offered", async () => {
  const { ai, model: m } = await start({
    rules: [{ name: "w", steps: [{ call: "weather:forecast" }] }],
  });
  const reply = await ai.models.generateContent({
    model: "m",
    contents: "forecast?",
    config: { tools: TOOLS },
  });
  expect(reply.text).toContain(
    // mcp_shipping_shipping_quote is no script tool's name here, so it cannot be split safely.
    "MCP tools offered: none. Tools offered, as the request names them: mcp_shipping_shipping_quote.",
  );
  expect(m.journal.problems).toHaveLength(1);
});

describe("faults", () => {
  const ask = async (ai: GoogleGenAI, signal?: AbortSignal) => {
    let text = "";
    for await (const chunk of await ai.models.generateContentStream({
      model: "m",
      contents: "hi",
      config: { abortSignal: signal },
    })) {
      text += chunk.text ?? "";
    }
    return text;
  };

  test.each([
    [400, "INVALID_ARGUMENT"],
    [401, "UNAUTHENTICATED"],
    [429, "RESOURCE_EXHAUSTED"],
    [500, "INTERNAL"],
  ])("HTTP %d arrives as an ApiError with status %s", async (status, name) => {
    const { ai } = await start(faultScript({ http: status, message: "nope" }));
    const error = await ask(ai).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as GenAI.ApiError).status).toBe(status);
    expect((error as GenAI.ApiError).message).toContain(name);
    expect((error as GenAI.ApiError).message).toContain("nope");
  });

  test("fail is an error chunk mid-stream; non-streaming it is an HTTP 500", async () => {
    const { ai } = await start(faultScript({ fail: "overloaded now" }));
    await expect(ask(ai)).rejects.toThrow("overloaded now");
    const { ai: again } = await start(faultScript({ fail: "overloaded now" }));
    const error = await again.models
      .generateContent({ model: "m", contents: "hi" })
      .catch((e: unknown) => e);
    expect((error as GenAI.ApiError).status).toBe(500);
  });

  test("cut stops the stream before its last chunk, and the SDK fails", async () => {
    const { ai } = await start(faultScript({ cut: true }));
    await expect(ask(ai)).rejects.toThrow();
  });

  test("hang never finishes; the client gives up", async () => {
    const { ai, model: m } = await start(faultScript({ hang: true }));
    await expect(ask(ai, AbortSignal.timeout(300))).rejects.toThrow();
    expect(m.journal.decisions.map((d) => d.kind)).toEqual(["hang"]);
  });

  test("delay holds the answer back", async () => {
    const { ai } = await start({ rules: [{ steps: [{ delay: 200 }, { reply: "late" }] }] });
    const started = Date.now();
    expect(await ask(ai)).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
