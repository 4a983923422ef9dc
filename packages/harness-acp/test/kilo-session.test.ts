/**
 * Kilo Code (`kilo acp`, the real binary) through the kit: the seed's two turns in one
 * session, the allow-list (a denied tool is not offered; with exposeDisallowedTools it
 * asks, is refused, and never reaches its server), an MCP server that fails to start, the
 * agent killed mid-turn, the planted-secret scan, OpenCode's `<server>_<tool>` collision
 * rule, and a contract test of the variables, flags and event shapes the profile relies on.
 * Ground truth: the servers' own call logs and the scripted model's journal. Kilo Code is
 * warm by default; the tests that check the session's own process or home (the kill, the
 * planted-secret scan of the kit's folders) select `warm: false`, and the tests on a launch
 * built by hand are cold (`selection` in support/acp.ts).
 */
import { readFileSync } from "node:fs";
import { expect } from "jest-m3";
import { createAgentHome, kiloHarness, kiloProfile } from "@jest-m3/harness-acp";
import {
  expectKilledMidTurn,
  expectNoValues,
  expectSecretsKept,
  lastOffered,
  perTestKit,
  serverStartFailure,
} from "@jest-m3/test-support";
import {
  acpLaunch,
  openShippingAndLedger,
  callLog,
  runTurn,
  selection,
  SESSION_RULES,
  scriptedAgent,
  expectAcpSeed,
  withAcpClient,
  expectDeclinedThenAllowed,
  expectCollisionRefused,
} from "./support/acp";

jest.setTimeout(180_000);

const t = perTestKit({ script: { rules: [...SESSION_RULES] } });
const kilo = () => scriptedAgent(t, "kilo");
/** Cold: the session's own Kilo Code process (in the kit's processes) and home (in its folders). */
const coldKilo = () => ({ ...kilo(), options: { warm: false } });

test("the seed: two turns share one session, one shipping_quote each, wire and reported", async () => {
  await expectAcpSeed(t, "kilo", "7.7.7");
});

test("allow-list: a denied tool is not offered to the model and never reaches its server", async () => {
  const { session, capture, logs } = await openShippingAndLedger(t, kiloHarness, "kilo", {});
  try {
    const turn = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
    expect(turn.outcome).toBe("completed");
    // The scripted model names the offered tools it knows from its script.
    expect(lastOffered(t.model)).toEqual(["shipping:shipping_quote"]);
    expect(t.model.journal.decisions.map((decision) => decision.kind)).toContain(
      "tool_not_offered",
    );
    expect(turn.toolCalls).toEqual([]);
    expect(capture.trace.toolCalls).toEqual([]);
    expect(callLog(logs.ledger)).toEqual([]);
  } finally {
    await session.close();
  }
});

test("exposeDisallowedTools: a denied tool asks, is refused and recorded, never reaches its server; an allowed one runs", async () => {
  await expectDeclinedThenAllowed(t, kiloHarness, "kilo", { exposeDisallowedTools: true });
});

test("an MCP server that fails to start is visible: the turn has no call and the trace names the server", async () => {
  await serverStartFailure(t.kit, kilo());
});

test("Kilo Code killed mid-turn: the turn and the session fail, nothing is left running", async () => {
  // Cold: the process killed is the session's own, found among the kit's processes (a warm
  // one is the pool's, outside the kit).
  await expectKilledMidTurn(t.kit, t.model, coldKilo(), "kilo");
});

test("planted secrets: a key, a header and a server secret reach no file, trace or event; the stdio server gets no key", async () => {
  const seen = await expectSecretsKept({
    kit: t.kit,
    // Cold: the agent's own HOME, XDG folders and TMPDIR are then among the kit's folders
    // the scan reads (a warm agent's home is its pool's, outside the kit).
    agent: coldKilo(),
    tag: "kilo",
    reported: ["GEMINI_API_KEY", "SCRIPTED_API_KEY"],
    prompt: "both quotes please",
  });
  expectNoValues(seen);
});

test("tool names: servers a and a_b flatten alike (a_b_c), refused before Kilo Code starts", async () => {
  await expectCollisionRefused(
    t,
    kiloHarness,
    "kilo",
    { a: ["b_c"], a_b: ["c"] },
    /servers "a" and "a_b"/,
  );
});

test("contract: the binary has the variables and flags the profile sets; initialize and session/new as relied on", async () => {
  const options = kiloProfile.resolveOptions({});
  const lookup = kiloProfile.executable(selection("kilo", undefined), {}, options);
  if (!lookup.found) throw new Error(lookup.reason);
  // The platform package's native binary itself, not the package's Node launcher.
  expect([lookup.source, lookup.prefix]).toEqual(["package", []]);
  expect(lookup.path).toMatch(/@kilocode[/\\]cli-[a-z0-9-]+[/\\]bin[/\\]kilo(\.exe)?$/);
  const binary = readFileSync(lookup.path, "latin1");
  const { launch } = await acpLaunch(
    t.kit,
    selection("kilo", {
      name: "scripted",
      baseUrl: "http://127.0.0.1:9/v1",
      wireApi: "chat-completions",
    }),
    [],
  );
  const home = await createAgentHome(await t.kit.tempDir("m3-contract-"));
  const plan = await kiloProfile.plan({ launch, home, options, executable: lookup });
  const names = Object.keys(plan.env).filter((name) => name.startsWith("KILO_"));
  expect(names.length).toBeGreaterThan(5);
  expect(names.filter((name) => !binary.includes(name))).toEqual([]);
  for (const needle of [
    "@ai-sdk/openai-compatible",
    "small_model",
    "run without external plugins",
  ]) {
    expect(binary).toContain(needle);
  }
  expect(plan.args).toEqual(["acp", "--pure"]);
  await withAcpClient(
    t.kit,
    kiloProfile.agent,
    {
      label: "kilo",
      command: lookup.command,
      args: [...lookup.prefix, ...plan.args],
      env: plan.env,
      cwd: launch.workspace,
    },
    kiloProfile.stop(options),
    async (client, init) => {
      expect(init.agentInfo).toEqual(expect.objectContaining({ name: "Kilo", version: "7.7.7" }));
      const session = await client.call(
        "session/new",
        { cwd: launch.workspace, mcpServers: [] },
        { timeoutMs: 60_000 },
      );
      const modelOption = (session.configOptions ?? []).find((option) => option.id === "model");
      expect((modelOption as { currentValue?: string } | undefined)?.currentValue).toBe(
        "scripted/scripted-1",
      );
    },
  );
});
