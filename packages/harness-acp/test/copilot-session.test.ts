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
import { expect } from "jest-m3";
import {
  copilotNaming,
  createAgentHome,
  InvalidAcpOptions,
  copilotHarness,
  copilotProfile,
} from "@jest-m3/harness-acp";
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
  shippingServer,
  waitFor,
  SESSION_RULES,
  scriptedAgent,
  expectAcpSeed,
  withAcpClient,
  acpStdioServer,
  expectCollisionRefused,
} from "./support/acp";

jest.setTimeout(180_000);

const t = perTestKit({ script: { rules: [...SESSION_RULES] } });
const copilot = () => scriptedAgent(t, "copilot");

test("the seed: two turns share one session, one shipping_quote each, wire and reported", async () => {
  await expectAcpSeed(t, "copilot", "1.0.102");
});

/** The tool names the agent sent with its last request that offered any, as it sent them. */
function rawOffered(): string[] {
  const bodies = t.model.journal.entries.map(
    (entry) => entry.body as { tools?: { function?: { name?: string } }[] } | null,
  );
  const last = bodies.filter((body) => (body?.tools?.length ?? 0) > 0).at(-1);
  return (last?.tools ?? []).map((tool) => tool.function?.name ?? "").sort();
}

test("allow-list: a denied tool is not offered to the model and never reaches its server", async () => {
  const { session, capture, logs } = await openShippingAndLedger(t, copilotHarness, "copilot", {});
  try {
    const turn = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
    expect(turn.outcome).toBe("completed");
    // The scripted model names the offered tools it knows from its script.
    expect(lastOffered(t.model)).toEqual(["shipping:shipping_quote"]);
    expect(t.model.journal.decisions.map((decision) => decision.kind)).toContain(
      "tool_not_offered",
    );
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
  const spawned = jest.spyOn(t.kit, "spawn");
  const { launch, capture } = await acpLaunch(
    t.kit,
    selection("copilot", t.model.providerFor("chat-completions"), {
      options: { exposeDisallowedTools: true },
    }),
    [shippingServer(join(await t.kit.tempDir("m3-log-"), "shipping.jsonl"))],
  );
  t.captures.push(capture);
  const error = await copilotHarness.open(launch).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidAcpOptions);
  expect((error as Error).message).toMatch(/exposeDisallowedTools/);
  expect((error as Error).message).toMatch(/without its server/);
  expect(spawned).not.toHaveBeenCalled();
});

test("an MCP server that fails to start is visible: the turn has no call and the trace names the server", async () => {
  // Copilot starts its MCP servers in the background and says nothing of a failure over
  // ACP. Core waits for the servers the agent started and fails open() naming one that
  // died; a server Copilot had not started yet when it answered session/new is not waited
  // for, and then the turn runs without its tools. Either way the server's words are kept.
  const { opened, session } = await serverStartFailure(t.kit, copilot(), async (open) => {
    const turn = await open.send("Please erase the ledger.");
    expect(turn.toolCalls).toEqual([]);
    expect(rawOffered()).not.toContain("ledger-erase_ledger");
  });
  if (opened !== undefined) {
    expect((opened as Error).message).toContain('MCP server "ledger" failed to start');
  }
  const stderr = session.result.trace.events
    .filter((event) => event.kind === "stderr" && event.server === "ledger")
    .map((event) => event.detail)
    .join("");
  expect(stderr).toContain("cannot open /nonexistent/ledger.db");
});

test("GitHub Copilot CLI killed mid-turn: the turn and the session fail, nothing is left running", async () => {
  await expectKilledMidTurn(t.kit, t.model, copilot(), "copilot");
});

test("planted secrets: a key, a header and a server secret reach no file, trace or event; the stdio server gets no key", async () => {
  const seen = await expectSecretsKept({
    kit: t.kit,
    agent: copilot(),
    tag: "copilot",
    reported: ["GEMINI_API_KEY", "SCRIPTED_API_KEY"],
    prompt: "both quotes please",
    // Every tool of both servers allowed: Copilot's own are hidden (--excluded-tools).
    whileOpen: () =>
      expect(rawOffered()).toEqual(["local-shipping_quote", "shipping-shipping_quote"]),
  });
  expectNoValues(seen);
});

test("tool names: servers a and a-b name tools alike (a-b-c), refused before GitHub Copilot CLI starts", async () => {
  await expectCollisionRefused(
    t,
    copilotHarness,
    "copilot",
    { a: ["b-c"], "a-b": ["c"] },
    /servers "a" and "a-b"/,
  );
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
    t.kit,
    selection("copilot", {
      name: "scripted",
      baseUrl: "http://127.0.0.1:9/v1",
      wireApi: "chat-completions",
    }),
    [],
  );
  const home = await createAgentHome(await t.kit.tempDir("m3-contract-"));
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
  const log = join(await t.kit.tempDir("m3-log-"), "shipping.jsonl");
  const stdio = shippingServer(log);
  await withAcpClient(
    t.kit,
    copilotProfile.agent,
    {
      label: "copilot",
      command: lookup.command,
      args: plan.args,
      env: plan.env,
      cwd: launch.workspace,
    },
    copilotProfile.stop(options),
    async (client, init) => {
      expect(init.agentInfo).toEqual(
        expect.objectContaining({ name: "Copilot", version: "1.0.102" }),
      );
      const session = await client.call(
        "session/new",
        {
          cwd: launch.workspace,
          mcpServers: [acpStdioServer(stdio)],
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
    },
  );
});
