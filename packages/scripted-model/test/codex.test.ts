/**
 * The real Codex binary against the scripted model, offline: Codex calls the shipping tool
 * through a real MCP server (examples/shipping) and replies with the tool's amount; both tool
 * exposures, a second turn, a fault, and a record/replay round trip.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  startRecordingModel,
  startReplayModel,
  startScriptedModel,
  type Script,
  type ScriptedModel,
} from "@jest-m3/scripted-model";
import { CodexHome, codexBinary, codexExec } from "./codex-exec";

const QUOTE: Script = {
  rules: [
    {
      name: "quote",
      when: { user: /shipping_quote/ },
      steps: [
        { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
        { reply: "The shipping quote is {{result.amount}} {{result.currency}}." },
      ],
    },
    {
      name: "follow-up",
      when: { turn: 2 },
      steps: [{ reply: "Turn {{turn}}: the last quote was {{result.amount}}." }],
    },
  ],
};
const PROMPT = "Call shipping_quote once for weight_kg 2 in zone local.";

const models: ScriptedModel[] = [];
const homes: CodexHome[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const model of models.splice(0)) await model.close();
  for (const home of homes.splice(0)) home.dispose();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function track<T extends ScriptedModel | CodexHome>(value: T): T {
  if (value instanceof CodexHome) homes.push(value);
  else models.push(value);
  return value;
}

/** A scripted model playing QUOTE, a Codex home on it, and one `codex exec` of PROMPT. */
async function quoteRun(codexModel: string) {
  const model = track(await startScriptedModel(QUOTE));
  const home = track(new CodexHome(model.provider));
  return { model, home, run: await codexExec(home, { model: codexModel, prompt: PROMPT }) };
}

test("the pinned Codex binary is there", () => {
  expect(codexBinary()).toMatch(/\/bin\/codex$/);
});

test("Codex calls shipping_quote through the real MCP server and quotes the amount", async () => {
  const { model, run } = await quoteRun("scripted");

  expect(run.failures).toEqual([]);
  expect(run.exitCode).toBe(0);
  expect(run.agentMessages.at(-1)).toContain("9");
  expect(run.agentMessages.at(-1)).toBe("The shipping quote is 9 USD.");
  expect(run.toolCalls).toMatchObject([
    {
      server: "shipping",
      tool: "shipping_quote",
      arguments: { weight_kg: 2, zone: "local" },
      status: "completed",
      result: { structured_content: { amount: 9, currency: "USD" } },
    },
  ]);

  expect(model.journal.decisions.map((d) => d.kind)).toEqual(["call", "reply"]);
  const call = model.journal.decisions[0];
  const callId = call?.kind === "call" ? call.calls[0]?.callId : undefined;
  const first = model.journal.entries[0];
  expect(first?.conversation).toMatchObject({
    turn: 1,
    user: PROMPT,
    offeredTools: ["shipping:shipping_quote"],
    toolSearch: false,
  });
  // The function_call_output came back in the next request, carrying the structured content.
  const second = model.journal.entries[1];
  const input = (second?.body as { input: { type: string; call_id?: string; output?: unknown }[] })
    .input;
  const output = input.find((item) => item.type === "function_call_output");
  expect(output?.call_id).toBe(callId);
  expect(String(output?.output)).toContain('{"amount":9,"currency":"USD"}');
  expect(second?.conversation?.turnResults).toMatchObject([
    { callId, server: "shipping", tool: "shipping_quote", value: { amount: 9, currency: "USD" } },
  ]);
  expect(model.journal.problems).toEqual([]);
}, 90_000);

test("with a catalog model name (gpt-5.5) the scripted model goes through tool_search first", async () => {
  const { model, run } = await quoteRun("gpt-5.5");

  expect(run.failures).toEqual([]);
  expect(run.agentMessages.at(-1)).toBe("The shipping quote is 9 USD.");
  expect(run.toolCalls).toHaveLength(1);
  expect(model.journal.decisions.map((d) => d.kind)).toEqual(["tool_search", "call", "reply"]);
  expect(model.journal.entries[0]?.conversation).toMatchObject({
    offeredTools: [],
    toolSearch: true,
  });
  expect(model.journal.entries[1]?.conversation?.offeredTools).toEqual(["shipping:shipping_quote"]);
  expect(model.journal.problems).toEqual([]);
}, 90_000);

test("a second turn (codex exec resume) matches on the turn number and sees the last result", async () => {
  const { model, home, run: first } = await quoteRun("scripted");
  expect(first.threadId).toBeDefined();
  const second = await codexExec(home, {
    model: "scripted",
    prompt: "And what was it again?",
    resumeThread: first.threadId,
  });
  expect(second.failures).toEqual([]);
  expect(second.agentMessages.at(-1)).toBe("Turn 2: the last quote was 9.");
  expect(model.journal.entries.at(-1)?.conversation).toMatchObject({
    turn: 2,
    user: "And what was it again?",
  });
}, 120_000);

test("a scripted response.failed reaches Codex as a failed turn with the message", async () => {
  const model = track(
    await startScriptedModel({
      rules: [{ steps: [{ fail: "the scripted model is down for maintenance" }] }],
    }),
  );
  const home = track(new CodexHome(model.provider));
  const run = await codexExec(home, { model: "scripted", prompt: "hello" });
  expect(run.exitCode).not.toBe(0);
  expect(run.failures).toEqual([
    expect.stringContaining("the scripted model is down for maintenance"),
  ]);
}, 90_000);

test("a Codex conversation recorded through an upstream replays offline; a changed prompt fails replay", async () => {
  const upstream = track(await startScriptedModel(QUOTE));
  const folder = mkdtempSync(join(tmpdir(), "m3-cassette-"));
  folders.push(folder);
  const cassette = join(folder, "quote.cassette.json");
  const recorder = track(
    await startRecordingModel({ upstream: { baseUrl: upstream.provider.baseUrl }, cassette }),
  );
  const recorded = await codexExec(track(new CodexHome(recorder.provider)), {
    model: "scripted",
    prompt: PROMPT,
  });
  expect(recorded.agentMessages.at(-1)).toBe("The shipping quote is 9 USD.");
  await recorder.close();
  await upstream.close();

  // Another home: other temp paths, ids, session and timings. Only the conversation counts.
  const replay = track(await startReplayModel({ cassette }));
  const replayed = await codexExec(track(new CodexHome(replay.provider)), {
    model: "scripted",
    prompt: PROMPT,
  });
  expect(replayed.failures).toEqual([]);
  expect(replayed.agentMessages.at(-1)).toBe("The shipping quote is 9 USD.");
  expect(replayed.toolCalls).toHaveLength(1);
  expect(replay.journal.decisions.map((d) => d.kind)).toEqual(["replay", "replay"]);

  const changed = await codexExec(track(new CodexHome(replay.provider)), {
    model: "scripted",
    prompt: "Call shipping_quote once for weight_kg 3 in zone regional.",
  });
  expect(changed.exitCode).not.toBe(0);
  expect(changed.failures.join("\n")).toContain("Replay mismatch: request #3");
  expect(replay.journal.problems[0]).toContain(
    "Closest recorded interaction: #1 (already served; all 2 were); " +
      'conversation item 1: recorded {"user":"Call shipping_quote once for weight_kg 2 in zone local."}, ' +
      'got {"user":"Call shipping_quote once for weight_kg 3 in zone regional."}',
  );
}, 150_000);
