/**
 * Cassettes in a dialect other than Responses: recording Anthropic Messages traffic (with the
 * key sent as x-api-key and never stored), replaying it, refusing a request of another
 * dialect, and turning the recording into a script with the m3-script-from-cassette command.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import {
  loadCassette,
  scriptFromCassette,
  startRecordingModel,
  startReplayModel,
  startScriptedModel,
  type ScriptedModel,
} from "@jest-m3/scripted-model";
import { QUOTE } from "./scripts";

const KEY_VARIABLE = "M3_DIALECT_CASSETTE_TEST_KEY";
const KEY_VALUE = "test-key-value-never-stored";
const BIN = resolve(__dirname, "../dist/bin/script-from-cassette.js");

const servers: ScriptedModel[] = [];
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-dialect-cassette-"));
  process.env[KEY_VARIABLE] = KEY_VALUE;
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  delete process.env[KEY_VARIABLE];
  rmSync(dir, { recursive: true, force: true });
});

const TOOL = {
  name: "mcp__shipping__shipping_quote",
  input_schema: { type: "object" as const, properties: {} },
};

/** Plays the quote conversation through the Anthropic SDK; returns the two answers. */
async function converse(baseUrl: string) {
  const client = new Anthropic({ baseURL: baseUrl, apiKey: "dummy", maxRetries: 0 });
  await client.messages.countTokens({ model: "m", messages: [{ role: "user", content: "x" }] });
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "quote please" }];
  const first = await client.messages
    .stream({ model: "m", max_tokens: 100, messages, tools: [TOOL] })
    .finalMessage();
  const use = first.content[0] as Anthropic.ToolUseBlock;
  messages.push(
    { role: "assistant", content: first.content },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: use.id, content: '{"amount":9,"currency":"USD"}' },
      ],
    },
  );
  const second = await client.messages.create({
    model: "m",
    max_tokens: 100,
    messages,
    tools: [TOOL],
  });
  return { call: use, reply: second.content[0] };
}

test("record, replay, refuse another dialect, and turn the cassette into a script", async () => {
  const upstream = await startScriptedModel(QUOTE);
  servers.push(upstream);
  const cassette = join(dir, "quote.json");
  const recorder = await startRecordingModel({
    upstream: {
      baseUrl: upstream.providerFor("anthropic-messages").baseUrl,
      dialect: "anthropic-messages",
      apiKeyEnv: KEY_VARIABLE,
    },
    cassette,
  });
  servers.push(recorder);
  const recorded = await converse(recorder.providerFor("anthropic-messages").baseUrl);
  expect(recorded.call.input).toEqual({ weight_kg: 2, zone: "local" });
  expect(recorded.reply).toMatchObject({ text: "Shipping costs 9 USD." });
  expect(upstream.journal.entries[1]?.headers["x-api-key"]).toBe("<redacted>");
  await recorder.close();

  const saved = loadCassette(cassette);
  expect(saved.dialect).toBe("anthropic-messages");
  expect(saved.interactions.map((i) => i.side ?? i.response.status)).toEqual([
    "token_count",
    200,
    200,
  ]);
  expect(readFileSync(cassette, "utf8")).not.toContain(KEY_VALUE);

  // Replay: the same conversation gets the same answers, with no upstream.
  await upstream.close();
  const replay = await startReplayModel({ cassette });
  servers.push(replay);
  const replayed = await converse(replay.providerFor("anthropic-messages").baseUrl);
  expect(replayed.call.input).toEqual({ weight_kg: 2, zone: "local" });
  expect(replayed.reply).toMatchObject({ text: "Shipping costs 9 USD." });
  expect(replay.journal.decisions.map((d) => d.kind)).toEqual(["replay", "replay"]);

  // A request of another dialect is refused in its own error shape.
  const other = await fetch(`${replay.url}/v1beta/models/m:generateContent`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "quote" }] }] }),
  });
  expect(other.status).toBe(400);
  const error = (await other.json()) as { error: { status: string; message: string } };
  expect(error.error.status).toBe("INVALID_ARGUMENT");
  expect(error.error.message).toContain(
    `Cassette ${cassette} was recorded in the anthropic-messages dialect; request #4 ` +
      "(POST /v1beta/models/m:generateContent) is a gemini request.",
  );
  expect(replay.journal.problems).toHaveLength(1);

  // The recording as a script: the function and the command give the same script.
  const script = scriptFromCassette(saved);
  expect(script).toEqual({
    rules: [
      {
        name: "turn 1",
        when: { user: "quote please", turn: 1 },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { reply: "Shipping costs 9 USD." },
        ],
      },
    ],
  });
  // docs/scripted-model.md shows this very output.
  const doc = readFileSync(resolve(__dirname, "../../../docs/scripted-model.md"), "utf8");
  const section = doc.slice(doc.indexOf("### From a recording to a script"));
  const shown = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "null";
  expect(JSON.parse(shown)).toEqual(script);
  const printed = execFileSync(process.execPath, [BIN, cassette], { encoding: "utf8" });
  expect(JSON.parse(printed)).toEqual(script);
  const scripted = await startScriptedModel(script);
  servers.push(scripted);
  const again = await converse(scripted.providerFor("anthropic-messages").baseUrl);
  expect(again.reply).toMatchObject({ text: "Shipping costs 9 USD." });
  scripted.journal.assertNoProblems();
});
