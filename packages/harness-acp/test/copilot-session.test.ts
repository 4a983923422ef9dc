/**
 * GitHub Copilot CLI (`copilot --acp`, the real binary) through the kit: the seed's two
 * turns in one session (its stdio MCP servers given at launch), the allow-list (a denied
 * tool is not offered: --available-tools), exposeDisallowedTools refused, an MCP server
 * that fails to start, the agent killed mid-turn, the planted-secret scan, Copilot's
 * `<server>-<tool>` collision rule, and a contract test of the flags, variables and
 * protocol facts the profile relies on (stdio servers in session/new still dropped).
 * Ground truth: the servers' own call logs, the scripted model's journal, Copilot's log.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect, type StdioServer } from "jest-m3";
import type { WireCapture } from "@jest-m3/core";
import {
  AcpClient,
  copilotNaming,
  createAgentHome,
  INITIALIZE_PARAMS,
  InvalidAcpOptions,
  copilotHarness,
  copilotProfile,
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

const KEY = "sk-m3-planted-copilot-key-5d19a0";
const HEADER = "m3-planted-copilot-header-77e2c4";
const SERVER_SECRET = "m3-planted-copilot-server-secret-3b8f61";

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
    { harness: "copilot", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
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
    expect.objectContaining({ harness: "copilot", model: "scripted-1", version: "1.0.102" }),
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

/** Opens a GitHub Copilot CLI session on the shipping and ledger servers, two tools allowed. */
async function openBoth(options: Record<string, unknown>) {
  const dir = await kit.tempDir("m3-log-");
  const logs = { shipping: join(dir, "shipping.jsonl"), ledger: join(dir, "ledger.jsonl") };
  const { launch, capture, events } = await acpLaunch(
    kit,
    selection("copilot", model.providerFor("chat-completions"), { options }),
    [shippingServer(logs.shipping), ledgerServer(logs.ledger)],
    ["shipping:shipping_quote", "ledger:read_ledger"],
  );
  captures.push(capture);
  const session = (await copilotHarness.open(launch)) as AcpSession;
  return { session, capture, events, logs };
}

/** The tool names the agent sent with its last request that offered any, as it sent them. */
function rawOffered(): string[] {
  const bodies = model.journal.entries.map(
    (entry) => entry.body as { tools?: { function?: { name?: string } }[] } | null,
  );
  const last = bodies.filter((body) => (body?.tools?.length ?? 0) > 0).at(-1);
  return (last?.tools ?? []).map((tool) => tool.function?.name ?? "").sort();
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
    // As Copilot sent them: the two allowed MCP tools, nothing of its own.
    expect(rawOffered()).toEqual(["ledger-read_ledger", "shipping-shipping_quote"]);
    expect(turn.toolCalls).toEqual([]);
    expect(capture.trace.toolCalls).toEqual([]);
    expect(callLog(logs.ledger)).toEqual([]);
  } finally {
    await session.close();
  }
});

test("exposeDisallowedTools is refused before anything starts, saying why", async () => {
  const spawned = jest.spyOn(kit, "spawn");
  const { launch, capture } = await acpLaunch(
    kit,
    selection("copilot", model.providerFor("chat-completions"), {
      options: { exposeDisallowedTools: true },
    }),
    [shippingServer(join(await kit.tempDir("m3-log-"), "shipping.jsonl"))],
  );
  captures.push(capture);
  const error = await copilotHarness.open(launch).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidAcpOptions);
  expect((error as Error).message).toMatch(/exposeDisallowedTools/);
  expect((error as Error).message).toMatch(/without its server/);
  expect(spawned).not.toHaveBeenCalled();
});

test("an MCP server that fails to start is visible: the turn has no call and the trace names the server", async () => {
  const dir = await kit.tempDir("m3-log-");
  const [agent] = kit.agents([
    { harness: "copilot", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
  ]);
  const session = agent!.session({
    server: ledgerServer(join(dir, "ledger.jsonl"), ["--exit-at-start"]),
    timeout: 60_000,
  });
  // Copilot starts its MCP servers in the background and says nothing of a failure over
  // ACP. Core waits for the servers the agent started and fails open() naming one that
  // died; a server Copilot had not started yet when it answered session/new is not waited
  // for, and then the turn runs without its tools. Either way the server's words are kept.
  const opened = await session.open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (opened === undefined) {
    const turn = await session.send("Please erase the ledger.");
    expect(turn.toolCalls).toEqual([]);
    expect(rawOffered()).not.toContain("ledger-erase_ledger");
  } else {
    expect((opened as Error).message).toContain('MCP server "ledger" failed to start');
  }
  await session.close();
  const stderr = session.result.trace.events
    .filter((event) => event.kind === "stderr" && event.server === "ledger")
    .map((event) => event.detail)
    .join("");
  expect(stderr).toContain("cannot open /nonexistent/ledger.db");
  expect(callLog(join(dir, "ledger.jsonl"))).toEqual([]);
});

test("GitHub Copilot CLI killed mid-turn: the turn and the session fail, nothing is left running", async () => {
  const [agent] = kit.agents([
    { harness: "copilot", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
  ]);
  const session = agent!.session({
    server: shippingServer(join(await kit.tempDir("m3-log-"), "shipping.jsonl")),
    timeout: 60_000,
  });
  await session.open();
  const kilo = kit.processes.find((child) => child.label.includes("copilot"));
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
  process.env.M3_PLANTED_COPILOT_KEY = KEY;
  const http = await startHttpShipping();
  try {
    const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
    const [agent] = kit.agents([
      {
        harness: "copilot",
        models: ["scripted-1"],
        provider: { ...model.providerFor("chat-completions"), envKey: "SCRIPTED_API_KEY" },
        credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_COPILOT_KEY" },
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
      // Every tool of both servers allowed: Copilot's own are hidden (--excluded-tools).
      expect(rawOffered()).toEqual(["local-shipping_quote", "shipping-shipping_quote"]);
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
    delete process.env.M3_PLANTED_COPILOT_KEY;
  }
});

test("tool names: servers a and a-b name tools alike (a-b-c), refused before GitHub Copilot CLI starts", async () => {
  const dir = await kit.tempDir("m3-log-");
  const named = (name: string, tools: string[]): StdioServer =>
    namedToolsServer(name, tools, join(dir, "calls.jsonl"));
  const { launch, capture } = await acpLaunch(
    kit,
    selection("copilot", model.providerFor("chat-completions")),
    [named("a", ["b-c"]), named("a-b", ["c"])],
  );
  captures.push(capture);
  const spawned = jest.spyOn(kit, "spawn");
  const error = await copilotHarness.open(launch).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolNameCollision);
  expect((error as Error).message).toMatch(/servers "a" and "a-b"/);
  expect(spawned).not.toHaveBeenCalled();
  expect(callLog(join(dir, "calls.jsonl"))).toEqual([]);
  // Servers whose names cannot meet are fine, and a call's title maps back to its server.
  expect(copilotNaming.name("ship.v2", "get_quote")).toBe("ship.v2-get_quote");
});

test("contract: the flags and variables the profile sets exist; initialize, session/new, and stdio servers in session/new still dropped", async () => {
  const options = copilotProfile.resolveOptions({});
  const lookup = copilotProfile.executable(selection("copilot", undefined), {}, options);
  if (!lookup.found) throw new Error(lookup.reason);
  // The platform package's executable itself, not the npm loader that spawns it.
  expect([lookup.source, lookup.prefix]).toEqual(["package", []]);
  expect(lookup.path).toMatch(/@github[/\\]copilot-[a-z]+-[a-z0-9]+[/\\]copilot(\.exe)?$/);
  const { launch } = await acpLaunch(
    kit,
    selection("copilot", {
      name: "scripted",
      baseUrl: "http://127.0.0.1:9/v1",
      wireApi: "chat-completions",
    }),
    [],
  );
  const home = await createAgentHome(await kit.tempDir("m3-contract-"));
  const plan = await copilotProfile.plan({ launch, home, options, executable: lookup });
  // Every flag is in --help; every variable in the unpacked CLI's code.
  const help = spawnSync(lookup.command, ["--help"], { env: plan.env, encoding: "utf8" }).stdout;
  const flags = plan.args.map((arg) => arg.split("=")[0] as string);
  expect(flags.filter((flag) => !help.includes(flag))).toEqual([]);
  const dist = plan.env.COPILOT_CLI_DIST_DIR as string;
  const code = readFileSync(join(dist, "cli-main.js"), "latin1");
  const names = Object.keys(plan.env).filter((name) => name.startsWith("COPILOT_"));
  expect(names).toEqual(expect.arrayContaining(["COPILOT_PROVIDER_BASE_URL", "COPILOT_OFFLINE"]));
  expect(names.filter((name) => !code.includes(name))).toEqual([]);
  // The stdio server given in session/new (not at launch) is dropped, as its log says.
  const log = join(await kit.tempDir("m3-log-"), "shipping.jsonl");
  const stdio = shippingServer(log);
  const client = new AcpClient(
    copilotProfile.agent,
    kit.spawn({
      label: "copilot",
      command: lookup.command,
      args: plan.args,
      env: plan.env,
      cwd: launch.workspace,
    }),
  );
  try {
    await client.connect();
    const init = await client.request("initialize", INITIALIZE_PARAMS, { timeoutMs: 60_000 });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toEqual(
      expect.objectContaining({ name: "Copilot", version: "1.0.102" }),
    );
    expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);
    const session = await client.request(
      "session/new",
      {
        cwd: launch.workspace,
        mcpServers: [
          {
            name: "shipping",
            command: stdio.command,
            args: [...(stdio.args ?? [])],
            env: Object.entries(stdio.env ?? {}).map(([name, value]) => ({ name, value })),
          },
        ],
      },
      { timeoutMs: 60_000 },
    );
    expect(typeof session.sessionId).toBe("string");
    expect((session.configOptions ?? []).map((option) => option.id)).toContain("mode");
    const logs = join(plan.env.COPILOT_HOME as string, "logs");
    await waitFor(
      () =>
        existsSync(logs) &&
        readdirSync(logs).some((file) =>
          readFileSync(join(logs, file), "utf8").includes(
            'Rejecting non-http/sse MCP server "shipping"',
          ),
        ),
      "Copilot's log line dropping the stdio server",
      30_000,
    );
  } finally {
    await client.close(copilotProfile.stop(options), 5000);
  }
});
