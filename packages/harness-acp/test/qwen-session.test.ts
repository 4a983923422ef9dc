/**
 * Qwen Code (the real `cli.js --acp` of `@qwen-code/qwen-code`, on the Node 22 the adapter
 * kit found) through the kit: the seed's two turns in one session, the allow-list (a denied
 * tool asks, is refused and never reaches its server), an MCP server that fails to start,
 * the agent killed mid-turn, the planted-secret scan with a server that reports its
 * environment (Qwen Code hands its MCP servers its whole environment, the key included, as
 * the contract test shows by starting it without the relay), Qwen Code's
 * `mcp__<server>__<tool>` collision rule, and a contract test of the variables, settings,
 * flags and event shapes the profile relies on. Ground truth: the servers' own logs and the
 * scripted model's journal. Qwen Code is warm by default; the tests that check the
 * session's own process or home (the seed's process tree gone at close, the kill, the
 * planted-secret scan of the kit's folders) select `warm: false`.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { expect } from "jest-m3";
import { createAgentHome, qwenHarness, qwenProfile } from "@jest-m3/harness-acp";
import {
  envLogEntries,
  envServer,
  expectKilledMidTurn,
  expectSecretsKept,
  expectSeedOn,
  kitTempDirs,
  perTestKit,
  plantedSecrets,
  serverStartFailure,
} from "@jest-m3/test-support";
import {
  acpLaunch,
  selection,
  SESSION_RULES,
  withAcpClient,
  scriptedAgent,
  expectDeclinedThenAllowed,
  acpStdioServer,
  expectCollisionRefused,
} from "./support/acp";

jest.setTimeout(180_000);

const KEY = plantedSecrets("qwen").key;

const t = perTestKit({ script: { rules: [...SESSION_RULES] } });
const provider = () => t.model.providerFor("chat-completions");
const qwen = () => scriptedAgent(t, "qwen-code");
/** Cold: the session's own Qwen Code process (in the kit's processes) and home (in its folders). */
const coldQwen = () => ({ ...qwen(), options: { warm: false } });

test("the seed: two turns share one session, one shipping_quote each, wire and reported; two model requests a turn", async () => {
  const before = t.model.journal.entries.length;
  // Cold, so the seed's check that nothing of the session's process tree runs after its
  // close covers Qwen Code itself (a warm one stays, outside the kit).
  const run = await expectSeedOn(t.kit, { ...coldQwen(), harness: "qwen" });
  expect(run.result.snapshot.agent).toEqual(
    expect.objectContaining({ harness: "qwen", model: "scripted-1", version: "0.24.4" }),
  );
  expect(run.first.response?.text).toBe("The quote for 2 kg is ready.");
  expect(run.second.response?.text).toBe("The quote for 3 kg is ready.");
  // The journal: the tool offered from turn 1 on, and no classifier, memory or suggestion
  // request: exactly a call and an answer per turn.
  const requests = t.model.journal.entries.slice(before);
  expect(requests).toHaveLength(4);
  for (const entry of requests) {
    expect(entry.conversation?.offeredTools).toEqual(["shipping:shipping_quote"]);
  }
});

test("allow-list: a denied tool asks, is refused and recorded, never reaches its server; an allowed one runs", async () => {
  await expectDeclinedThenAllowed(t, qwenHarness, "qwen-code");
});

test("an MCP server that fails to start is visible: the trace names the server and its words", async () => {
  await serverStartFailure(t.kit, qwen());
});

test("Qwen Code killed mid-turn: the turn and the session fail, nothing is left running", async () => {
  await expectKilledMidTurn(t.kit, t.model, coldQwen(), "qwen-code");
});

test("planted secrets: a key, a header and a server secret reach no file, trace or event; the stdio server never sees the key", async () => {
  const seen = await expectSecretsKept({
    kit: t.kit,
    agent: coldQwen(),
    tag: "qwen",
    // The session's own Qwen Code home is one of the folders scanned.
    whileOpen: () =>
      expect(kitTempDirs(t.kit).map((dir) => basename(dir))).toContainEqual(
        expect.stringMatching(/^m3-qwen-code-(?!warm-)/),
      ),
    reported: ["OPENAI_API_KEY", "SCRIPTED_API_KEY", "QWEN_CODE_SESSION_ID"],
    prompt: "both quotes please",
  });
  // Ground truth from the server itself: the relay started it without Qwen Code's
  // environment (no key under either name, not even Qwen Code's own session variable).
  for (const entry of seen) {
    expect(entry).toEqual({
      OPENAI_API_KEY: null,
      SCRIPTED_API_KEY: null,
      QWEN_CODE_SESSION_ID: null,
    });
  }
});

test("tool names: a:b__c and a__b:c are both mcp__a__b__c, refused before Qwen Code starts", async () => {
  await expectCollisionRefused(
    t,
    qwenHarness,
    "qwen-code",
    { a: ["b__c"], a__b: ["c"] },
    /servers "a" and "a__b"/,
  );
  // Names that differ only after sanitising stay apart (Qwen Code appends a hash).
  expect(qwenProfile.naming?.name("a.b", "c")).not.toBe(qwenProfile.naming?.name("a_b", "c"));
  expect(qwenProfile.naming?.name("a_b", "c")).toBe("mcp__a_b__c");
});

test("contract: the Node it runs on, the variables, settings and flags the profile sets; initialize, session/new, updates and env inheritance as relied on", async () => {
  const options = qwenProfile.resolveOptions({});
  const script = qwenProfile.executable(selection("qwen-code", undefined), {}, options);
  if (!script.found) throw new Error(script.reason);
  expect(script.path).toMatch(/@qwen-code[/\\]qwen-code[/\\]cli\.js$/);
  const runtime = await qwenProfile.runtime!(script, {}, options);
  const lookup = runtime.executable;
  if (!lookup.found) throw new Error(lookup.reason);
  // Node 22 runs the script itself (no cli-entry.js relaunching a second Node).
  expect(lookup.prefix).toEqual(["--expose-gc", script.path]);
  expect(runtime.node.reason).toMatch(
    /^Node 22\.\d+\.\d+ \(.+\); Qwen Code needs Node ≥ 22\.0\.0$/,
  );
  const bundle = readdirSync(join(script.path, "..", "chunks"))
    .map((name) => readFileSync(join(script.path, "..", "chunks", name), "utf8"))
    .join("\n");
  const { launch } = await acpLaunch(
    t.kit,
    selection("qwen-code", {
      name: "scripted",
      baseUrl: provider().baseUrl,
      wireApi: "chat-completions",
    }),
    [],
  );
  const home = await createAgentHome(await t.kit.tempDir("m3-contract-"));
  const plan = await qwenProfile.plan({ launch, home, options, executable: lookup });
  for (const name of Object.keys(plan.env).filter((variable) =>
    variable.startsWith("QWEN_CODE_"),
  )) {
    expect([name, bundle.includes(name)]).toEqual([name, true]);
  }
  for (const needle of [
    "enableManagedAutoMemory",
    "enableManagedAutoDream",
    "enableFollowupSuggestions",
    "toolSearch",
    "approval-mode",
    "isToolDisabledByCoreToolsAllowList",
  ]) {
    expect([needle, bundle.includes(needle)]).toEqual([needle, true]);
  }
  const settings = JSON.parse(readFileSync(join(home.home, ".qwen/settings.json"), "utf8")) as {
    tools: { core: string[] };
  };
  expect(settings.tools.core).toEqual(["m3_no_builtin_tools"]);
  // Without the relay, Qwen Code hands its whole environment to the MCP servers it starts:
  // the default the profile guards against.
  const envLog = join(await t.kit.tempDir("m3-log-"), "env.jsonl");
  const direct = envServer(envLog, ["OPENAI_API_KEY", "QWEN_CODE_SESSION_ID"]);
  const updates: unknown[] = [];
  const env = { ...plan.env, OPENAI_API_KEY: KEY };
  await withAcpClient(
    t.kit,
    qwenProfile.agent,
    {
      label: "qwen-code",
      command: lookup.command,
      args: [...lookup.prefix, ...plan.args],
      env,
      cwd: launch.workspace,
    },
    qwenProfile.stop(options),
    async (client, init) => {
      expect(init.agentInfo).toEqual(
        expect.objectContaining({ name: "qwen-code", version: "0.24.4" }),
      );
      const session = await client.call(
        "session/new",
        {
          cwd: launch.workspace,
          mcpServers: [acpStdioServer(direct)],
        },
        { timeoutMs: 60_000 },
      );
      // The settings' approval mode, not ACP's default `auto` (a classifier request per call).
      expect((session as { modes?: { currentModeId?: string } }).modes?.currentModeId).toBe(
        "default",
      );
      // QWEN_CODE_LEGACY_MCP_BLOCKING: the server already started when session/new answered.
      const seen = envLogEntries(envLog);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.OPENAI_API_KEY).toBe(KEY);
      // Qwen Code's own variables too: the server gets the agent's environment as it is.
      expect(seen[0]?.QWEN_CODE_SESSION_ID).toEqual(expect.stringMatching(/\S/));
      const stop = client.handle(
        {
          onUpdate: (notification) => updates.push(notification.update),
          onPermission: (request) => {
            updates.push({ permission: request.toolCall });
            const once = request.options.find((option) => option.kind === "allow_once");
            return { outcome: { outcome: "selected", optionId: once?.optionId ?? "" } };
          },
        },
        session.sessionId,
      );
      const answer = await client.call(
        "session/prompt",
        {
          sessionId: session.sessionId,
          prompt: [
            { type: "text", text: "Call shipping_quote once for weight_kg 2 in zone local." },
          ],
        },
        { timeoutMs: 90_000 },
      );
      stop();
      expect(answer.stopReason).toBe("end_turn");
      const meta = { toolName: "mcp__shipping__shipping_quote" };
      expect(updates).toContainEqual({
        permission: expect.objectContaining({
          rawInput: { weight_kg: 2, zone: "local" },
          _meta: expect.objectContaining(meta),
        }),
      });
      expect(updates).toContainEqual(
        expect.objectContaining({
          sessionUpdate: "tool_call",
          // The kind follows the tool's annotations (shipping_quote is read-only), not MCP.
          kind: "read",
          _meta: expect.objectContaining({ ...meta, serverId: "shipping", provenance: "mcp" }),
        }),
      );
      expect(updates).toContainEqual(
        expect.objectContaining({
          sessionUpdate: "tool_call_update",
          status: "completed",
          _meta: expect.objectContaining({ ...meta, serverId: "shipping" }),
        }),
      );
    },
  );
});

test("readiness names the Node it found and the one Qwen Code needs; a Node too old is refused before anything starts", async () => {
  const ready = await qwenHarness.readiness({
    selection: selection("qwen-code", provider()),
    config: {},
    credentialNames: [],
  });
  expect(ready.capabilities.node?.status).toBe("ready");
  expect(ready.capabilities.node?.reason).toMatch(/Qwen Code needs Node ≥ 22\.0\.0$/);
  expect(ready.ready).toBe(true);
  const node20 = join(await t.kit.tempDir("m3-node-"), "node");
  writeFileSync(node20, "#!/bin/sh\necho v20.11.0\n", { mode: 0o755 });
  const old = await qwenHarness.readiness({
    selection: selection("qwen-code", provider()),
    config: { M3_QWEN_NODE: node20 },
    credentialNames: [],
  });
  expect(old.ready).toBe(false);
  expect(old.capabilities.node?.reason).toContain(
    `M3_QWEN_NODE names Node 20.11.0 (${node20}), but Qwen Code needs Node ≥ 22.0.0`,
  );
});
