/**
 * One server, one script, four dialects: the provider of each, one conversation step in each
 * at once, and what every dialect answers to a path none serves or a body that is not JSON.
 */
import {
  PROVIDER_DIALECTS,
  ScriptedModelError,
  startScriptedModel,
  type ScriptedModel,
} from "@jest-m3/scripted-model";
import { requestBody, namespaceTools, userMessage } from "./codex-requests";
import { postResponses } from "./sse-client";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

test("providerFor gives each dialect's base URL as its vendor's SDK takes it", async () => {
  model = await startScriptedModel({ rules: [{ steps: [{ reply: "hi" }] }] }, { name: "m3" });
  expect(PROVIDER_DIALECTS).toEqual([
    "responses",
    "chat-completions",
    "anthropic-messages",
    "gemini",
  ]);
  expect(PROVIDER_DIALECTS.map((d) => model?.providerFor(d))).toEqual([
    { name: "m3", baseUrl: `${model.url}/v1`, wireApi: "responses" },
    { name: "m3", baseUrl: `${model.url}/v1`, wireApi: "chat-completions" },
    { name: "m3", baseUrl: model.url, wireApi: "anthropic-messages" },
    { name: "m3", baseUrl: model.url, wireApi: "gemini" },
  ]);
  expect(model.provider).toEqual(model.providerFor("responses"));
  expect(() => model?.providerFor("bedrock" as never)).toThrow(ScriptedModelError);
  expect(() => model?.providerFor("bedrock" as never)).toThrow(
    'Unknown provider dialect "bedrock"; the scripted model speaks responses, chat-completions, anthropic-messages, gemini.',
  );
});

test("one script answers every dialect at once, each in its own naming", async () => {
  model = await startScriptedModel({
    rules: [
      {
        when: { user: "quote" },
        steps: [{ call: "shipping:shipping_quote", args: { weight_kg: 2 } }],
      },
    ],
  });
  const m = model;
  const [responses, chat, anthropic, gemini] = await Promise.all([
    postResponses(
      m.provider.baseUrl,
      requestBody({
        input: [userMessage("quote")],
        tools: [namespaceTools("shipping", ["shipping_quote"])],
      }),
    ),
    post(`${m.providerFor("chat-completions").baseUrl}/chat/completions`, {
      model: "m",
      messages: [{ role: "user", content: "quote" }],
      tools: [{ type: "function", function: { name: "shipping_shipping_quote" } }],
    }),
    post(`${m.providerFor("anthropic-messages").baseUrl}/v1/messages`, {
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "quote" }],
      tools: [{ name: "mcp__shipping__shipping_quote", input_schema: {} }],
    }),
    post(`${m.providerFor("gemini").baseUrl}/v1beta/models/m:generateContent`, {
      contents: [{ role: "user", parts: [{ text: "quote" }] }],
      tools: [{ functionDeclarations: [{ name: "mcp_shipping_shipping_quote" }] }],
    }),
  ]);
  expect(responses.status).toBe(200);
  for (const reply of [chat, anthropic, gemini]) expect(reply.status).toBe(200);
  const byDialect = Object.fromEntries(
    m.journal.entries.map((e) => [
      e.dialect,
      e.decision.kind === "call" ? e.decision.calls.map((c) => [c.namespace, c.name]) : e.decision,
    ]),
  );
  expect(byDialect).toEqual({
    responses: [["mcp__shipping", "shipping_quote"]],
    "chat-completions": [[null, "shipping_shipping_quote"]],
    "anthropic-messages": [[null, "mcp__shipping__shipping_quote"]],
    gemini: [[null, "mcp_shipping_shipping_quote"]],
  });
  m.journal.assertNoProblems();
});

test("a body that is not JSON gets a 400 in the dialect's own error shape", async () => {
  model = await startScriptedModel({ rules: [{ steps: [{ reply: "hi" }] }] });
  const anthropic = await post(`${model.url}/v1/messages`, "{nope");
  expect(anthropic.status).toBe(400);
  expect(await anthropic.json()).toEqual({
    type: "error",
    error: {
      type: "invalid_request_error",
      message: "The request body is not a JSON object; an Anthropic Messages request is expected.",
    },
  });
  const gemini = await post(`${model.url}/v1beta/models/m:generateContent`, "{nope");
  expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe(
    "INVALID_ARGUMENT",
  );
  const nowhere = await fetch(`${model.url}/v2/elsewhere`);
  expect(nowhere.status).toBe(404);
  expect(model.journal.entries.map((e) => [e.dialect, e.status])).toEqual([
    ["anthropic-messages", 400],
    ["gemini", 400],
    [null, 404],
  ]);
  expect(model.journal.problems[2]).toContain(
    "it serves POST <origin>/v1/responses, POST <origin>/v1/chat/completions, GET <origin>/v1/models, POST <origin>/v1/messages",
  );
});
