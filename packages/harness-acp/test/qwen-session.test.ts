/**
 * Qwen Code (the real `cli.js --acp` of `@qwen-code/qwen-code`, on the Node 22 the adapter
 * kit found) through the kit: the seed's two turns in one session, the allow-list (a denied
 * tool asks, is refused and never reaches its server), an MCP server that fails to start,
 * the agent killed mid-turn, the planted-secret scan with a server that reports its
 * environment (Qwen Code hands its MCP servers its whole environment, the key included, as
 * the contract test shows by starting it without the relay), Qwen Code's
 * `mcp__<server>__<tool>` collision rule, and a contract test of the variables, settings,
 * flags and event shapes the profile relies on. Ground truth: the servers' own logs and the
 * scripted model's journal.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect, type StdioServer } from "jest-m3";
import type { WireCapture } from "@jest-m3/core";
import {
  AcpClient,
  createAgentHome,
  INITIALIZE_PARAMS,
  qwenHarness,
  qwenProfile,
  ToolNameCollision,
  type AcpSession,
} from "@jest-m3/harness-acp";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import {
  envLogEntries,
  envServer,
  expectSeed,
  HANG_RULE,
  runSeed,
  seedRule,
  filesContaining,
  kitTempDirs,
  namedCallLog,
  namedToolsServer,
} from "@jest-m3/test-support";
import {
  acpLaunch,
  callLog,
  closeAndExpectNoProcessLeft,
  descendants,
  isRunning,
  knownPids,
  ledgerServer,
  REPO_ROOT,
  runTurn,
  selection,
  shippingServer,
  startHttpShipping,
  waitFor,
} from "./support/acp";

jest.setTimeout(180_000);

const KEY = "sk-m3-planted-qwen-key-8c41d2";
const HEADER = "m3-planted-qwen-header-1f93ab";
const SERVER_SECRET = "m3-planted-qwen-server-secret-6e27c0";

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel({
    rules: [
      seedRule("The quote for {{match.1}} kg is ready."),
      {
        name: "erase",
        when: { user: "erase" },
        steps: [{ call: "ledger:erase_ledger", args: {} }, { reply: "Erased, I hope." }],
      },
      {
        name: "both",
        when: { user: "both quotes" },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { call: "local:shipping_quote", args: { weight_kg: 3, zone: "local" } },
          { reply: "Both quotes are ready." },
        ],
      },
      HANG_RULE,
    ],
  });
});
afterAll(async () => {
  await model.close();
});

let kit: MCPTestKit;
let captures: WireCapture[];
beforeEach(() => {
  kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  captures = [];
});
afterEach(async () => {
  await closeAndExpectNoProcessLeft(kit, knownPids(kit, captures));
});

const provider = () => model.providerFor("chat-completions");

test("the seed: two turns share one session, one shipping_quote each, wire and reported; two model requests a turn", async () => {
  const log = join(await kit.tempDir("m3-log-"), "shipping.jsonl");
  const [agent] = kit.agents([{ harness: "qwen", models: ["scripted-1"], provider: provider() }]);
  const session = agent!.session({
    server: { ...shippingServer(log), cwd: join(REPO_ROOT, "examples/shipping") },
    tools: ["shipping:shipping_quote"],
    timeout: 120_000,
  });
  const before = model.journal.entries.length;
  const run = await runSeed(
    session,
    () => kit.processes.flatMap((child) => [child.pid, ...descendants(child.pid)]),
    120_000,
  );
  expectSeed(run, log);
  expect(run.result.snapshot.agent).toEqual(
    expect.objectContaining({ harness: "qwen", model: "scripted-1", version: "0.24.4" }),
  );
  expect(run.first.response?.text).toBe("The quote for 2 kg is ready.");
  expect(run.second.response?.text).toBe("The quote for 3 kg is ready.");
  // The journal: the tool offered from turn 1 on, and no classifier, memory or suggestion
  // request: exactly a call and an answer per turn.
  const requests = model.journal.entries.slice(before);
  expect(requests).toHaveLength(4);
  for (const entry of requests) {
    expect(entry.conversation?.offeredTools).toEqual(["shipping:shipping_quote"]);
  }
  expect(run.pids.filter(isRunning)).toEqual([]);
});

/** The tools offered with the model's last request that offered any. */
function lastOffered(): readonly string[] | undefined {
  return model.journal.entries
    .filter((entry) => (entry.conversation?.offeredTools.length ?? 0) > 0)
    .at(-1)?.conversation?.offeredTools;
}

test("allow-list: a denied tool asks, is refused and recorded, never reaches its server; an allowed one runs", async () => {
  const dir = await kit.tempDir("m3-log-");
  const logs = { shipping: join(dir, "shipping.jsonl"), ledger: join(dir, "ledger.jsonl") };
  const { launch, capture, events } = await acpLaunch(
    kit,
    selection("qwen-code", provider()),
    [shippingServer(logs.shipping), ledgerServer(logs.ledger)],
    ["shipping:shipping_quote", "ledger:read_ledger"],
  );
  captures.push(capture);
  const session = (await qwenHarness.open(launch)) as AcpSession;
  try {
    const denied = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
    expect([denied.outcome, denied.error]).toEqual(["completed", null]);
    expect(lastOffered()).toContain("ledger:erase_ledger");
    expect(denied.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
      ["ledger", "erase_ledger", "policy_denied"],
    ]);
    expect(events).toContainEqual({
      kind: "approval",
      detail: "declined ledger:erase_ledger (not in the session's allow-list)",
    });
    const allowed = await runTurn(session, capture, "turn-2", "Quote weight_kg 2 in zone local.");
    expect(allowed.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
      ["shipping", "shipping_quote", "success"],
    ]);
    expect(capture.trace.toolCalls.map((call) => call.tool)).toEqual(["shipping_quote"]);
    expect(callLog(logs.ledger)).toEqual([]);
    expect(callLog(logs.shipping).map((entry) => entry.tool)).toEqual(["shipping_quote"]);
  } finally {
    await session.close();
  }
});

test("an MCP server that fails to start is visible: the trace names the server and its words", async () => {
  const dir = await kit.tempDir("m3-log-");
  const [agent] = kit.agents([
    { harness: "qwen-code", models: ["scripted-1"], provider: provider() },
  ]);
  const session = agent!.session({
    server: ledgerServer(join(dir, "ledger.jsonl"), ["--exit-at-start"]),
    timeout: 60_000,
  });
  const opened = await session.open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  await session.close();
  const text = JSON.stringify([
    opened instanceof Error ? opened.message : null,
    session.result.trace.events,
  ]);
  expect(text).toMatch(/ledger/);
  expect(text).toContain("cannot open /nonexistent/ledger.db");
});

test("Qwen Code killed mid-turn: the turn and the session fail, nothing is left running", async () => {
  const [agent] = kit.agents([
    { harness: "qwen-code", models: ["scripted-1"], provider: provider() },
  ]);
  const session = agent!.session({
    server: shippingServer(join(await kit.tempDir("m3-log-"), "shipping.jsonl")),
    timeout: 60_000,
  });
  await session.open();
  const qwen = kit.processes.find((child) => child.label.includes("qwen-code"));
  expect(qwen).toBeDefined();
  const before = model.journal.entries.length;
  const turn = session.send("hang");
  await waitFor(() => model.journal.entries.length > before, "the hanging model request", 60_000);
  process.kill(qwen!.pid, "SIGKILL");
  const ended = await turn;
  await session.close();
  expect(ended.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(ended.error?.message).toMatch(/exited/);
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
});

test("planted secrets: a key, a header and a server secret reach no file, trace or event; the stdio server never sees the key", async () => {
  process.env.M3_PLANTED_QWEN_KEY = KEY;
  const http = await startHttpShipping();
  try {
    const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
    const [agent] = kit.agents([
      {
        harness: "qwen-code",
        models: ["scripted-1"],
        provider: { ...provider(), envKey: "SCRIPTED_API_KEY" },
        credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_QWEN_KEY" },
      },
    ]);
    const reporter = envServer(envLog, [
      "OPENAI_API_KEY",
      "SCRIPTED_API_KEY",
      "QWEN_CODE_SESSION_ID",
    ]);
    const local: StdioServer = {
      ...reporter,
      name: "local",
      env: { ...reporter.env, SHIPPING_TOKEN: SERVER_SECRET },
    };
    const session = agent!.session({
      servers: [
        { name: "shipping", url: http.url, headers: { authorization: `Bearer ${HEADER}` } },
        local,
      ],
      timeout: 90_000,
    });
    const needles = [KEY, HEADER, SERVER_SECRET];
    {
      await using open = await session.open();
      const turn = await open.send("both quotes please");
      expect(turn.snapshot.outcome).toBe("completed");
      expect(turn.toolCalls.map((call) => [call.server, call.status, call.evidence])).toEqual([
        ["shipping", "success", "both"],
        ["local", "success", "both"],
      ]);
      const dirs = kitTempDirs(kit);
      expect(dirs.length).toBeGreaterThan(2);
      expect(dirs.flatMap((dir) => filesContaining(dir, needles))).toEqual([]);
    }
    const everything = JSON.stringify([session.result, session.result.trace]);
    for (const needle of needles) expect(everything).not.toContain(needle);
    // Ground truth from the server itself: the relay started it without Qwen Code's
    // environment (no key under either name, not even Qwen Code's own session variable).
    const seen = envLogEntries(envLog);
    expect(seen.length).toBeGreaterThan(0);
    for (const entry of seen) {
      expect(entry).toEqual({
        OPENAI_API_KEY: null,
        SCRIPTED_API_KEY: null,
        QWEN_CODE_SESSION_ID: null,
      });
    }
  } finally {
    await http.stop();
    delete process.env.M3_PLANTED_QWEN_KEY;
  }
});

test("tool names: a:b__c and a__b:c are both mcp__a__b__c, refused before Qwen Code starts", async () => {
  const dir = await kit.tempDir("m3-log-");
  const log = join(dir, "calls.jsonl");
  const { launch, capture } = await acpLaunch(kit, selection("qwen-code", provider()), [
    namedToolsServer("a", ["b__c"], log),
    namedToolsServer("a__b", ["c"], log),
  ]);
  captures.push(capture);
  const spawned = jest.spyOn(kit, "spawn");
  const error = await qwenHarness.open(launch).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolNameCollision);
  expect((error as Error).message).toMatch(/servers "a" and "a__b"/);
  expect(spawned).not.toHaveBeenCalled();
  expect(namedCallLog(log)).toEqual([]);
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
  expect(runtime.capability.reason).toMatch(
    /^Node 22\.\d+\.\d+ \(.+\); Qwen Code needs Node ≥ 22\.0\.0$/,
  );
  const bundle = readdirSync(join(script.path, "..", "chunks"))
    .map((name) => readFileSync(join(script.path, "..", "chunks", name), "utf8"))
    .join("\n");
  const { launch } = await acpLaunch(
    kit,
    selection("qwen-code", {
      name: "scripted",
      baseUrl: provider().baseUrl,
      wireApi: "chat-completions",
    }),
    [],
  );
  const home = await createAgentHome(await kit.tempDir("m3-contract-"));
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
  const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
  const direct = envServer(envLog, ["OPENAI_API_KEY", "QWEN_CODE_SESSION_ID"]);
  const updates: unknown[] = [];
  const env = { ...plan.env, OPENAI_API_KEY: KEY };
  const client = new AcpClient(
    qwenProfile.agent,
    kit.spawn({
      label: "qwen-code",
      command: lookup.command,
      args: [...lookup.prefix, ...plan.args],
      env,
      cwd: launch.workspace,
    }),
  );
  try {
    await client.connect();
    const init = await client.request("initialize", INITIALIZE_PARAMS, { timeoutMs: 60_000 });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toEqual(
      expect.objectContaining({ name: "qwen-code", version: "0.24.4" }),
    );
    expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);
    const session = await client.request(
      "session/new",
      {
        cwd: launch.workspace,
        mcpServers: [
          {
            name: "shipping",
            command: direct.command,
            args: [...(direct.args ?? [])],
            env: Object.entries(direct.env ?? {}).map(([name, value]) => ({ name, value })),
          },
        ],
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
    const answer = await client.request(
      "session/prompt",
      {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: "Call shipping_quote once for weight_kg 2 in zone local." }],
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
  } finally {
    await client.close(qwenProfile.stop(options), 5000);
  }
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
  const node20 = join(await kit.tempDir("m3-node-"), "node");
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
