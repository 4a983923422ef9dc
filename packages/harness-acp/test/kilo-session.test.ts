/**
 * Kilo Code (`kilo acp`, the real binary) through the kit: the seed's two turns in one
 * session, the allow-list (a denied tool is not offered; with exposeDisallowedTools it
 * asks, is refused, and never reaches its server), an MCP server that fails to start, the
 * agent killed mid-turn, the planted-secret scan, OpenCode's `<server>_<tool>` collision
 * rule, and a contract test of the variables, flags and event shapes the profile relies on.
 * Ground truth: the servers' own call logs and the scripted model's journal.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect, type StdioServer } from "jest-m3";
import type { WireCapture } from "@jest-m3/core";
import {
  AcpClient,
  createAgentHome,
  INITIALIZE_PARAMS,
  kiloHarness,
  kiloProfile,
  ToolNameCollision,
  type AcpSession,
} from "@jest-m3/harness-acp";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { filesContaining, fixturePath, kitTempDirs, namedToolsServer } from "@jest-m3/test-support";
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

const KEY = "sk-m3-planted-kilo-key-5d19a0";
const HEADER = "m3-planted-kilo-header-77e2c4";
const SERVER_SECRET = "m3-planted-kilo-server-secret-3b8f61";

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel({
    rules: [
      {
        name: "quote",
        when: { user: /weight_kg (\d+) in zone (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply: "The quote for {{match.1}} kg is ready." },
        ],
      },
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
      { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
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

test("the seed: two turns share one session, one shipping_quote each, wire and reported", async () => {
  const log = join(await kit.tempDir("m3-log-"), "shipping.jsonl");
  const [agent] = kit.agents([
    { harness: "kilo", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
  ]);
  const session = agent!.session({
    server: { ...shippingServer(log), cwd: join(REPO_ROOT, "examples/shipping") },
    tools: ["shipping:shipping_quote"],
    timeout: 120_000,
  });
  let first, second;
  let pids: number[];
  {
    await using open = await session.open();
    first = await open.send("Call shipping_quote once for weight_kg 2 in zone local.", {
      timeout: 120_000,
    });
    second = await open.send("Call shipping_quote once for weight_kg 3 in zone regional.", {
      timeout: 120_000,
    });
    pids = kit.processes.flatMap((child) => [child.pid, ...descendants(child.pid)]);
  }
  const result = session.result;
  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(first.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(second.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(first.snapshot.sessionId).toBe(second.snapshot.sessionId);
  expect(result).toHaveToolCall("shipping_quote", {
    turn: first,
    server: "shipping",
    status: "success",
    count: 1,
  });
  expect(result).toHaveToolCall("shipping_quote").inTurn(second).withStatus("success").times(1);
  expect(result.snapshot.agent).toEqual(
    expect.objectContaining({ harness: "kilo", model: "scripted-1", version: "7.7.7" }),
  );
  expect(first.response?.text).toBe("The quote for 2 kg is ready.");
  expect(second.response?.text).toBe("The quote for 3 kg is ready.");
  for (const [turn, args] of [
    [first, { weight_kg: 2, zone: "local" }],
    [second, { weight_kg: 3, zone: "regional" }],
  ] as const) {
    expect(
      turn.toolCalls.map((call) => [call.server, call.tool, call.arguments, call.evidence]),
    ).toEqual([["shipping", "shipping_quote", args, "both"]]);
  }
  expect(callLog(log).map((entry) => entry.arguments)).toEqual([
    { weight_kg: 2, zone: "local" },
    { weight_kg: 3, zone: "regional" },
  ]);
  expect(pids.filter(isRunning)).toEqual([]);
});

/** Opens a Kilo Code session on the shipping and ledger servers, two tools allowed. */
async function openBoth(options: Record<string, unknown>) {
  const dir = await kit.tempDir("m3-log-");
  const logs = { shipping: join(dir, "shipping.jsonl"), ledger: join(dir, "ledger.jsonl") };
  const { launch, capture, events } = await acpLaunch(
    kit,
    selection("kilo", model.providerFor("chat-completions"), { options }),
    [shippingServer(logs.shipping), ledgerServer(logs.ledger)],
    ["shipping:shipping_quote", "ledger:read_ledger"],
  );
  captures.push(capture);
  const session = (await kiloHarness.open(launch)) as AcpSession;
  return { session, capture, events, logs };
}

/** The tools offered with the model's last request that offered any. */
function lastOffered(): readonly string[] | undefined {
  return model.journal.entries
    .filter((entry) => (entry.conversation?.offeredTools.length ?? 0) > 0)
    .at(-1)?.conversation?.offeredTools;
}

test("allow-list: a denied tool is not offered to the model and never reaches its server", async () => {
  const { session, capture, logs } = await openBoth({});
  try {
    const turn = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
    expect(turn.outcome).toBe("completed");
    // The scripted model names the offered tools it knows from its script.
    expect(lastOffered()).toEqual(["shipping:shipping_quote"]);
    expect(model.journal.decisions.map((decision) => decision.kind)).toContain("tool_not_offered");
    expect(turn.toolCalls).toEqual([]);
    expect(capture.trace.toolCalls).toEqual([]);
    expect(callLog(logs.ledger)).toEqual([]);
  } finally {
    await session.close();
  }
});

test("exposeDisallowedTools: a denied tool asks, is refused and recorded, never reaches its server; an allowed one runs", async () => {
  const { session, capture, events, logs } = await openBoth({ exposeDisallowedTools: true });
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
    expect(callLog(logs.ledger)).toEqual([]);
    expect(callLog(logs.shipping).map((entry) => entry.tool)).toEqual(["shipping_quote"]);
  } finally {
    await session.close();
  }
});

test("an MCP server that fails to start is visible: the turn has no call and the trace names the server", async () => {
  const dir = await kit.tempDir("m3-log-");
  const [agent] = kit.agents([
    { harness: "kilo", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
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

test("Kilo Code killed mid-turn: the turn and the session fail, nothing is left running", async () => {
  const [agent] = kit.agents([
    { harness: "kilo", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
  ]);
  const session = agent!.session({
    server: shippingServer(join(await kit.tempDir("m3-log-"), "shipping.jsonl")),
    timeout: 60_000,
  });
  await session.open();
  const kilo = kit.processes.find((child) => child.label.includes("kilo"));
  expect(kilo).toBeDefined();
  const before = model.journal.entries.length;
  const turn = session.send("hang");
  await waitFor(() => model.journal.entries.length > before, "the hanging model request", 60_000);
  process.kill(kilo!.pid, "SIGKILL");
  const ended = await turn;
  await session.close();
  expect(ended.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(ended.error?.message).toMatch(/exited/);
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
});

test("planted secrets: a key, a header and a server secret reach no file, trace or event; the stdio server gets no key", async () => {
  process.env.M3_PLANTED_KILO_KEY = KEY;
  const http = await startHttpShipping();
  try {
    const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
    const [agent] = kit.agents([
      {
        harness: "kilo",
        models: ["scripted-1"],
        provider: { ...model.providerFor("chat-completions"), envKey: "SCRIPTED_API_KEY" },
        credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_KILO_KEY" },
      },
    ]);
    const local: StdioServer = {
      name: "local",
      command: process.execPath,
      args: [fixturePath("env-server.mjs"), "GEMINI_API_KEY", "SCRIPTED_API_KEY"],
      env: { ENV_LOG: envLog, SHIPPING_TOKEN: SERVER_SECRET },
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
    const seen = readFileSync(envLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, string | null>);
    expect(seen.length).toBeGreaterThan(0);
    for (const entry of seen) {
      for (const value of Object.values(entry)) expect([null, ""]).toContain(value);
    }
  } finally {
    await http.stop();
    delete process.env.M3_PLANTED_KILO_KEY;
  }
});

test("tool names: servers a and a_b flatten alike (a_b_c), refused before Kilo Code starts", async () => {
  const dir = await kit.tempDir("m3-log-");
  const named = (name: string, tools: string[]): StdioServer =>
    namedToolsServer(name, tools, join(dir, "calls.jsonl"));
  const { launch, capture } = await acpLaunch(
    kit,
    selection("kilo", model.providerFor("chat-completions")),
    [named("a", ["b_c"]), named("a_b", ["c"])],
  );
  captures.push(capture);
  const spawned = jest.spyOn(kit, "spawn");
  const error = await kiloHarness.open(launch).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolNameCollision);
  expect((error as Error).message).toMatch(/servers "a" and "a_b"/);
  expect(spawned).not.toHaveBeenCalled();
  expect(callLog(join(dir, "calls.jsonl"))).toEqual([]);
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
    kit,
    selection("kilo", {
      name: "scripted",
      baseUrl: "http://127.0.0.1:9/v1",
      wireApi: "chat-completions",
    }),
    [],
  );
  const home = await createAgentHome(await kit.tempDir("m3-contract-"));
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
  const client = new AcpClient(
    kiloProfile.agent,
    kit.spawn({
      label: "kilo",
      command: lookup.command,
      args: [...lookup.prefix, ...plan.args],
      env: plan.env,
      cwd: launch.workspace,
    }),
  );
  try {
    await client.connect();
    const init = await client.request("initialize", INITIALIZE_PARAMS, { timeoutMs: 60_000 });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toEqual(expect.objectContaining({ name: "Kilo", version: "7.7.7" }));
    expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);
    const session = await client.request(
      "session/new",
      { cwd: launch.workspace, mcpServers: [] },
      { timeoutMs: 60_000 },
    );
    const modelOption = (session.configOptions ?? []).find((option) => option.id === "model");
    expect((modelOption as { currentValue?: string } | undefined)?.currentValue).toBe(
      "scripted/scripted-1",
    );
  } finally {
    await client.close(kiloProfile.stop(options), 5000);
  }
});
