/**
 * Record and replay, offline: a second scripted server plays the real upstream; the cassette
 * is replayed with that upstream stopped.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  loadCassette,
  startRecordingModel,
  startReplayModel,
  startScriptedModel,
  type ScriptedModel,
} from "@jest-m3/scripted-model";
import { callAndOutput, outputItems, preamble, requestBody, userMessage } from "./codex-requests";
import { postResponses, type Reply } from "./sse-client";

const KEY_VARIABLE = "M3_SCRIPTED_UPSTREAM_TEST_KEY";
const KEY_VALUE = "sk-test-9f8e7d6c5b4a-never-stored";

let dir: string;
const open: ScriptedModel[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-cassette-"));
  process.env[KEY_VARIABLE] = KEY_VALUE;
});
afterEach(async () => {
  for (const model of open.splice(0)) await model.close();
  delete process.env[KEY_VARIABLE];
  rmSync(dir, { recursive: true, force: true });
});

async function upstreamModel(): Promise<ScriptedModel> {
  const model = await startScriptedModel({
    rules: [
      {
        name: "quote",
        when: { user: /quote/i },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { reply: "The quote is {{result.amount}} {{result.currency}}." },
        ],
      },
      {
        name: "broken",
        when: { user: "break" },
        steps: [{ http: 500, message: "upstream exploded" }],
      },
    ],
  });
  open.push(model);
  return model;
}

/**
 * Plays the quote conversation against a server, the way Codex would: fresh ids, a different
 * cwd/date/cache key and tool timing on every run (all volatile).
 */
async function quoteConversation(
  baseUrl: string,
  run: number,
  prompt = "Please quote 2 kg local",
): Promise<Reply[]> {
  const conversation = `conv-${run}-${Math.random()}`;
  const input = [...preamble(`/tmp/run-${run}`, `2026-12-0${run}`), userMessage(prompt)];
  const first = await postResponses(baseUrl, requestBody({ input, conversation }));
  if (first.status !== 200) return [first];
  input.push(
    ...callAndOutput(
      outputItems(first.frames)[0] as never,
      { amount: 9, currency: "USD" },
      `0.00${run}1`,
    ),
  );
  const second = await postResponses(baseUrl, requestBody({ input, conversation }));
  return [first, second];
}

/** The quote conversation recorded once through a fresh upstream, into `dir/<name>`. */
async function recordQuote(name: string): Promise<{ upstream: ScriptedModel; cassette: string }> {
  const upstream = await upstreamModel();
  const cassette = join(dir, name);
  const recorder = await startRecordingModel({
    upstream: { baseUrl: upstream.provider.baseUrl },
    cassette,
  });
  open.push(recorder);
  await quoteConversation(recorder.provider.baseUrl, 1);
  await recorder.close();
  return { upstream, cassette };
}

const payloads = (replies: Reply[]) => replies.map((r) => r.frames.map((f) => f.data));

test("record through a real upstream, then replay the cassette with the upstream stopped", async () => {
  const upstream = await upstreamModel();
  const cassette = join(dir, "quote.cassette.json");
  const recorder = await startRecordingModel({
    upstream: { baseUrl: upstream.provider.baseUrl, apiKeyEnv: KEY_VARIABLE },
    cassette,
  });
  open.push(recorder);
  const recorded = await quoteConversation(recorder.provider.baseUrl, 1);
  expect(outputItems(recorded[1]?.frames ?? [])[0]).toMatchObject({
    content: [{ text: "The quote is 9 USD." }],
  });
  const failing = await postResponses(
    recorder.provider.baseUrl,
    requestBody({ input: [userMessage("break it")] }),
  );
  expect(failing.status).toBe(500);
  await recorder.close();

  // The key went upstream, but it is in neither journal nor cassette.
  expect(upstream.journal.entries[0]?.headers.authorization).toBe("Bearer <redacted>");
  const text = readFileSync(cassette, "utf8");
  expect(text).not.toContain(KEY_VALUE);
  expect(JSON.stringify(recorder.journal.toJSON())).not.toContain(KEY_VALUE);
  const saved = loadCassette(cassette);
  expect(saved.upstream).toEqual({ baseUrl: upstream.provider.baseUrl, apiKeyEnv: KEY_VARIABLE });
  expect(saved.interactions.map((i) => i.response.status)).toEqual([200, 200, 500]);
  expect(saved.interactions[0]?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  expect(saved.interactions[0]?.request.input).toEqual([{ user: "Please quote 2 kg local" }]);
  expect(recorder.journal.decisions.map((d) => d.kind)).toEqual(["record", "record", "record"]);

  await upstream.close();
  const replay = await startReplayModel({ cassette });
  open.push(replay);
  const replayed = await quoteConversation(replay.provider.baseUrl, 2);
  expect(payloads(replayed)).toEqual(payloads(recorded));
  const failed = await postResponses(
    replay.provider.baseUrl,
    requestBody({ input: [userMessage("break it")] }),
  );
  expect(failed.status).toBe(500);
  expect(failed.json).toEqual(failing.json);
  expect(replay.journal.decisions).toEqual([
    { kind: "replay", interaction: 1, status: 200 },
    { kind: "replay", interaction: 2, status: 200 },
    { kind: "replay", interaction: 3, status: 500 },
  ]);
  expect(replay.journal.problems).toEqual([]);
});

test("a changed prompt fails replay with a message that says which request and what differed", async () => {
  const { upstream, cassette } = await recordQuote("quote.cassette.json");
  await upstream.close();

  const replay = await startReplayModel({ cassette });
  open.push(replay);
  const [reply] = await quoteConversation(replay.provider.baseUrl, 2, "Please quote 3 kg regional");
  expect(reply?.status).toBe(400);
  const expected =
    'Replay mismatch: request #1 (POST /v1/responses, turn 1, user message "Please quote 3 kg regional") ' +
    `matches no recorded interaction in cassette ${cassette}. Closest recorded interaction: #1 (not yet ` +
    'served); conversation item 1: recorded {"user":"Please quote 2 kg local"}, got ' +
    '{"user":"Please quote 3 kg regional"}. If the conversation changed on purpose, record the cassette again.';
  expect(reply?.json.error).toMatchObject({ message: expected, code: "replay_mismatch" });
  expect(replay.journal.decisions[0]).toEqual({ kind: "replay_mismatch", message: expected });
  expect(replay.journal.problems).toEqual([`request #1 (POST /v1/responses): ${expected}`]);
});

test("a request replayed twice is a mismatch that says its recording was already served", async () => {
  const { cassette } = await recordQuote("c.json");
  const replay = await startReplayModel({ cassette });
  open.push(replay);
  await quoteConversation(replay.provider.baseUrl, 2);
  const [again] = await quoteConversation(replay.provider.baseUrl, 3);
  expect(again?.status).toBe(400);
  expect(again?.json.error.message).toContain(
    "It equals interaction #1, which was already served; each recorded response is served once " +
      "(the cassette holds 2).",
  );
});

test("volatile patterns are saved in the cassette and keep timestamps out of fingerprints", async () => {
  const upstream = await startScriptedModel({ rules: [{ steps: [{ reply: "noted" }] }] });
  open.push(upstream);
  const cassette = join(dir, "volatile.json");
  const recorder = await startRecordingModel({
    upstream: { baseUrl: upstream.provider.baseUrl },
    cassette,
    volatile: [/\d{2}:\d{2}:\d{2}/],
  });
  open.push(recorder);
  await postResponses(
    recorder.provider.baseUrl,
    requestBody({ input: [userMessage("log at 10:11:12")] }),
  );
  await recorder.close();
  expect(loadCassette(cassette).volatile).toEqual([{ regex: "\\d{2}:\\d{2}:\\d{2}", flags: "" }]);
  expect(loadCassette(cassette).interactions[0]?.request.input).toEqual([
    { user: "log at <volatile>" },
  ]);

  const replay = await startReplayModel({ cassette });
  open.push(replay);
  const reply = await postResponses(
    replay.provider.baseUrl,
    requestBody({ input: [userMessage("log at 23:59:59")] }),
  );
  expect(outputItems(reply.frames)[0]).toMatchObject({ content: [{ text: "noted" }] });
});

test("an unreachable upstream is a 502 naming it, journaled as a problem and not recorded", async () => {
  const gone = await startScriptedModel({ rules: [] });
  const baseUrl = gone.provider.baseUrl;
  await gone.close();
  const cassette = join(dir, "none.json");
  const recorder = await startRecordingModel({ upstream: { baseUrl }, cassette });
  open.push(recorder);
  const reply = await postResponses(
    recorder.provider.baseUrl,
    requestBody({ input: [userMessage("hi")] }),
  );
  expect(reply.status).toBe(502);
  expect(reply.json.error.message).toContain(
    `The upstream ${baseUrl}/responses could not be reached`,
  );
  expect(recorder.journal.problems).toHaveLength(1);
  await recorder.close();
  expect(loadCassette(cassette).interactions).toEqual([]);
});
