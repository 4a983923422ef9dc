/**
 * Fault steps as a plain HTTP/SSE client sees them: HTTP errors, a cut stream,
 * response.failed, a hanging stream, a delay, and faults served once per conversation.
 */
import { startScriptedModel, type ScriptedModel, type Step } from "@jest-m3/scripted-model";
import { outputItems, requestBody, userMessage } from "./codex-requests";
import { postResponses, readFirstFrames } from "./sse-client";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function start(steps: Step[]): Promise<ScriptedModel> {
  model = await startScriptedModel({ rules: [{ name: "faulty", steps }] });
  return model;
}

const body = (conversation = "conv-1") =>
  requestBody({ input: [userMessage("hello")], conversation });

test.each([
  [400, "invalid_request_error"],
  [401, "invalid_request_error"],
  [429, "rate_limit_exceeded"],
  [500, "server_error"],
])("HTTP %i answers with an OpenAI-style JSON error", async (status, type) => {
  const m = await start([{ http: status, message: `scripted ${status}` }]);
  const reply = await postResponses(m.provider.baseUrl, body());
  expect(reply.status).toBe(status);
  expect(reply.headers.get("content-type")).toBe("application/json");
  expect(reply.json).toEqual({
    error: { message: `scripted ${status}`, type, code: type, param: null },
  });
  expect(reply.headers.get("retry-after")).toBe(status === 429 ? "1" : null);
  expect(m.journal.entries[0]).toMatchObject({ status, decision: { kind: "http", status } });
});

test("an HTTP error without a message names the rule and step", async () => {
  const m = await start([{ http: 500 }]);
  const reply = await postResponses(m.provider.baseUrl, body());
  expect(reply.json.error.message).toBe('Scripted HTTP 500 error (rule "faulty" step 1).');
});

test("a cut stream ends before response.completed", async () => {
  const m = await start([{ cut: true }]);
  const reply = await postResponses(m.provider.baseUrl, body());
  expect(reply.status).toBe(200);
  expect(reply.types).toEqual([
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
  ]);
  expect(m.journal.decisions[0]).toMatchObject({ kind: "cut" });
});

test("fail answers with response.failed carrying the message", async () => {
  const m = await start([{ fail: "the model fell over" }]);
  const reply = await postResponses(m.provider.baseUrl, body());
  expect(reply.types).toEqual(["response.created", "response.in_progress", "response.failed"]);
  expect(reply.frames.at(-1)?.data.response).toMatchObject({
    status: "failed",
    error: { code: "server_error", message: "the model fell over" },
  });
});

test("a hanging stream starts and never finishes; close() still returns promptly", async () => {
  const m = await start([{ hang: true }]);
  const frames = await readFirstFrames(m.provider.baseUrl, body(), 2);
  expect(frames.map((f) => f.data.type)).toEqual(["response.created", "response.in_progress"]);

  // A client that waits for the rest gives up on its own timeout.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 300);
  const started = Date.now();
  await expect(
    postResponses(m.provider.baseUrl, body("conv-2"), { signal: controller.signal }),
  ).rejects.toThrow(/abort/i);
  clearTimeout(timer);
  expect(Date.now() - started).toBeGreaterThanOrEqual(280);

  // A hang still open when the server closes is cut.
  const pending = postResponses(m.provider.baseUrl, body("conv-3")).catch(
    (error: unknown) => error,
  );
  while (m.journal.entries.length < 3) await new Promise((r) => setTimeout(r, 10));
  const closing = Date.now();
  await m.close();
  expect(Date.now() - closing).toBeLessThan(1000);
  await pending;
  expect(m.journal.decisions.map((d) => d.kind)).toEqual(["hang", "hang", "hang"]);
});

test("a delay holds back the next step's response", async () => {
  const m = await start([{ delay: 400 }, { reply: "late" }]);
  const started = Date.now();
  const reply = await postResponses(m.provider.baseUrl, body());
  expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  expect(outputItems(reply.frames)[0]).toMatchObject({ content: [{ text: "late" }] });
  expect(m.journal.entries[0]).toMatchObject({
    delayMs: 400,
    decision: { kind: "reply", step: 2 },
  });
});

test("a fault is served once per conversation: a retry moves on to the next step", async () => {
  const m = await start([{ http: 500 }, { cut: true }, { reply: "recovered" }]);
  expect((await postResponses(m.provider.baseUrl, body("a"))).status).toBe(500);
  expect((await postResponses(m.provider.baseUrl, body("a"))).types.at(-1)).toBe(
    "response.output_text.delta",
  );
  const third = await postResponses(m.provider.baseUrl, body("a"));
  expect(outputItems(third.frames)[0]).toMatchObject({ content: [{ text: "recovered" }] });
  // Another conversation starts from the first step again.
  expect((await postResponses(m.provider.baseUrl, body("b"))).status).toBe(500);
  expect(m.journal.decisions.map((d) => d.kind)).toEqual(["http", "cut", "reply", "http"]);
});
