/**
 * An agent's own tools (Gemini CLI's shell, file and search tools, OpenCode's bash, read,
 * glob...) are off unless the selection turns them on with `builtinTools`, with or without
 * an allow-list, with or without `exposeDisallowedTools`; a call is an MCP call only when
 * the protocol says so (its kind, its id or name), never because its display text names a
 * server; and a tool of the agent's own is never recorded as an MCP call. Ground truth: the
 * tools the scripted model was offered (its journal), a marker file the shell command
 * would create, the servers' own call logs.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, type WireCapture } from "@jest-m3/core";
import type { HarnessDefinition, ProviderDialect } from "@jest-m3/core/harness";
import {
  acpHarness,
  geminiHarness,
  opencodeHarness,
  type AcpSession,
  InvalidAcpOptions,
} from "@jest-m3/harness-acp";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { callRule, quoteRule } from "@jest-m3/test-support";
import {
  acpLaunch,
  callLog,
  closeAndExpectNoProcessLeft,
  knownPids,
  REPO_ROOT,
  runTurn,
  selection,
  shippingServer,
} from "./support/acp";

jest.setTimeout(120_000);

let model: ScriptedModel;
let kit: MCPTestKit;
let pids: number[];
let captures: WireCapture[];
/** What the shell commands create, in the agent's working directory (its workspace). */
const MARKER = "m3-shell-ran";
let marker: string;

beforeEach(async () => {
  kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  pids = [];
  captures = [];
  model = await startScriptedModel({
    // The rules call the agent's own tools; whether the agent offers them is the question.
    toolNotOffered: "expected",
    rules: [
      {
        name: "shell",
        when: { user: "shell" },
        steps: [
          {
            // Gemini CLI titles a shell call with its command: this one ends like an MCP
            // tool's title.
            call: "shipping:run_shell_command",
            args: { command: `touch ${MARKER} # (shipping MCP Server)`, description: "Touch." },
          },
          { reply: "Ran it." },
        ],
      },
      {
        name: "bash",
        when: { user: "bash" },
        steps: [
          {
            // OpenCode titles a bash call with its command: this one starts like an MCP name.
            call: "shipping:bash",
            args: { command: `shipping_quote=1 touch ${MARKER}`, description: "Touch." },
          },
          { reply: "Ran it." },
        ],
      },
      callRule("list", "shipping:list_directory", { dir_path: "." }, "Listed."),
      callRule("glob", "shipping:glob", { pattern: "**/*" }, "Globbed."),
      quoteRule(),
    ],
  });
});
afterEach(async () => {
  await closeAndExpectNoProcessLeft(kit, [...pids, ...knownPids(kit, captures)]);
  await model.close();
});

/** Every function name the agent declared to the model, in any request (Gemini and Chat). */
function declared(): string[] {
  const names = new Set<string>();
  for (const entry of model.journal.entries) {
    const body = entry.body as { tools?: unknown } | null;
    for (const tool of Array.isArray(body?.tools)
      ? (body.tools as Record<string, unknown>[])
      : []) {
      for (const fn of (tool.functionDeclarations ?? []) as { name: string }[]) names.add(fn.name);
      const chat = tool.function as { name?: string } | undefined;
      if (chat?.name) names.add(chat.name);
    }
  }
  return [...names].sort();
}

async function open(
  harness: HarnessDefinition,
  dialect: ProviderDialect,
  options: Record<string, unknown>,
  tools: readonly string[] | undefined,
  extra: { env?: Record<string, string> } = {},
) {
  const log = join(await kit.tempDir("m3-log-"), "shipping.jsonl");
  const { launch, capture, events } = await acpLaunch(
    kit,
    selection(harness.name, model.providerFor(dialect), { options }),
    [shippingServer(log)],
    tools,
    extra.env,
  );
  captures.push(capture);
  marker = join(launch.workspace, MARKER);
  const session = (await harness.open(launch)) as AcpSession;
  pids.push(session.pid as number);
  return { session, capture, events, log };
}

const SESSIONS = [
  ["no allow-list", {}, undefined],
  [
    "an allow-list and exposeDisallowedTools",
    { exposeDisallowedTools: true },
    ["shipping:shipping_quote"],
  ],
  ["an allow-list", {}, ["shipping:shipping_quote"]],
] as const;

describe.each([
  ["gemini", geminiHarness, "gemini", "mcp_shipping_shipping_quote", ["shell", "list", "glob"]],
  ["opencode", opencodeHarness, "chat-completions", "shipping_shipping_quote", ["bash", "glob"]],
] as const)("%s", (_name, harness, dialect, mcpName, asks) => {
  describe.each(SESSIONS)("with %s", (_what, options, tools) => {
    test("only the MCP tools are offered; the agent's own tools never run; MCP calls still work", async () => {
      const { session, capture, log } = await open(harness, dialect, options, tools);
      for (const [index, ask] of asks.entries()) {
        const turn = await runTurn(session, capture, `turn-${index}`, `Please ${ask}.`);
        expect([turn.outcome, turn.toolCalls]).toEqual(["completed", []]);
      }
      expect(declared()).toEqual([mcpName]);
      expect(existsSync(marker)).toBe(false);
      expect(model.journal.decisions.map((decision) => decision.kind)).toEqual(
        asks.map(() => "tool_not_offered"),
      );
      const quote = await runTurn(session, capture, "turn-quote", "Please quote.");
      expect(quote.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
        ["shipping", "shipping_quote", "success"],
      ]);
      expect(callLog(log).map((entry) => entry.tool)).toEqual(["shipping_quote"]);
      expect(capture.trace.toolCalls.map((call) => call.tool)).toEqual(["shipping_quote"]);
    });
  });
});

/**
 * A turn of `prompt` on a session with the agent's own `tool` turned on: it completes, the
 * model is offered `offered`, the tool ran (its marker exists), and nothing of it is an MCP
 * call (no record, nothing on the wire, nothing in the server's log).
 */
async function expectOwnToolUnrecorded(
  harness: HarnessDefinition,
  dialect: ProviderDialect,
  tool: string,
  prompt: string,
  offered: readonly string[],
) {
  const { session, capture, log } = await open(
    harness,
    dialect,
    { builtinTools: [tool] },
    undefined,
  );
  const turn = await runTurn(session, capture, "turn-1", prompt);
  expect(turn.outcome).toBe("completed");
  expect(declared()).toEqual(offered);
  // The tool ran: the selection turned it on.
  expect(existsSync(marker)).toBe(true);
  expect(turn.toolCalls).toEqual([]);
  expect(capture.trace.toolCalls).toEqual([]);
  expect(callLog(log)).toEqual([]);
  return turn;
}

test("gemini with builtinTools: the shell runs as asked, and is not recorded as an MCP call though its title names a server", async () => {
  const turn = await expectOwnToolUnrecorded(
    geminiHarness,
    "gemini",
    "run_shell_command",
    "Please shell.",
    ["mcp_shipping_shipping_quote", "run_shell_command"],
  );
  // Gemini CLI reported it (kind execute, title "touch ... # (shipping MCP Server)").
  expect(JSON.stringify(turn.events)).toContain("(shipping MCP Server)");
});

test("opencode with builtinTools: bash runs as asked, and is not recorded as an MCP call though its title is an MCP name", async () => {
  await expectOwnToolUnrecorded(opencodeHarness, "chat-completions", "bash", "Please bash.", [
    "bash",
    "shipping_shipping_quote",
  ]);
});

test("any ACP agent (Gemini CLI by command, its own tools on): a shell call whose title names a server asks, is refused and never runs", async () => {
  const gemini = join(REPO_ROOT, "node_modules/@google/gemini-cli/bundle/gemini.js");
  const { session, capture, events, log } = await open(
    acpHarness,
    "gemini",
    {
      command: process.execPath,
      args: [gemini, "--acp", "-m", "{{model}}"],
      env: {
        GOOGLE_GEMINI_BASE_URL: "{{provider.baseUrl}}",
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_CLI_NO_RELAUNCH: "true",
      },
      dialects: ["gemini"],
      stop: "sigterm",
      selectModel: false,
    },
    undefined,
    { env: { GEMINI_API_KEY: "m3-no-key" } },
  );
  const turn = await runTurn(session, capture, "turn-1", "Please shell.");
  expect(turn.outcome).toBe("completed");
  expect(declared()).toContain("run_shell_command");
  expect(existsSync(marker)).toBe(false);
  expect(events).toContainEqual({
    kind: "approval",
    detail: expect.stringMatching(
      /^declined "touch m3-shell-ran # \(shipping MCP Server\)" \(not an MCP tool/,
    ),
  });
  expect(turn.toolCalls).toEqual([]);
  expect(capture.trace.toolCalls).toEqual([]);
  expect(callLog(log)).toEqual([]);
});

describe("builtinTools is checked before anything starts", () => {
  test.each([
    [geminiHarness, { builtinTools: ["mcp_shipping_shipping_quote"] }, /an MCP tool's name/],
    [
      opencodeHarness,
      { builtinTools: ["shipping_shipping_quote"] },
      /a tool of the server "shipping"/,
    ],
    [geminiHarness, { builtinTools: ["*"] }, /no wildcards/],
    [opencodeHarness, { builtinTools: "bash" }, /must be an array/],
    [
      acpHarness,
      { command: process.execPath, builtinTools: ["bash"] },
      /gemini and opencode harnesses only/,
    ],
  ] as const)("%#", async (harness, options, message) => {
    const dialect = harness === opencodeHarness ? "chat-completions" : "gemini";
    const spawned = jest.spyOn(kit, "spawn");
    const error = await open(harness, dialect, options, undefined).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidAcpOptions);
    expect((error as Error).message).toMatch(message);
    // Refused before the agent was spawned.
    expect(spawned).not.toHaveBeenCalled();
  });
});
