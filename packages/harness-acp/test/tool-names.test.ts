/**
 * Flattened tool names: each agent gives `server:tool` one function name (OpenCode
 * `<server>_<tool>`, Gemini CLI `mcp_<server>_<tool>`, other characters rewritten), so
 * distinct MCP tools can share a name. A session whose names would collide is refused
 * before the agent starts, naming the servers and tools and how to fix it; a name the agent
 * rewrote is reported under the MCP tool's real name, so one wire call is one record. Ground
 * truth: the servers' own call logs and the wire capture.
 */
import { join } from "node:path";
import { parseToolPolicy } from "@jest-m3/core/testing";
import { type HarnessDefinition } from "@jest-m3/core/harness";
import {
  assertDistinctToolNames,
  geminiHarness,
  geminiNaming,
  identifyCall,
  identifyGeminiCall,
  identifyOpencodeCall,
  nameCollisions,
  opencodeHarness,
  opencodeNaming,
  serverPrefixOverlaps,
  ToolNameCollision,
  type AcpSession,
} from "@jest-m3/harness-acp";
import {
  callRule,
  expectOneCallBothWays,
  namedCallLog as calls,
  namedToolsServer as namedServer,
  perTestKit,
} from "@jest-m3/test-support";
import { acpLaunch, runTurn, selection } from "./support/acp";

jest.setTimeout(120_000);

const policy = (tools: readonly string[] | undefined, servers: readonly string[]) =>
  parseToolPolicy(tools, servers);

describe("the collision rule (agent-neutral, pure)", () => {
  test("OpenCode flattens a.b:c, a_b:c and a:b_c to the same a_b_c", () => {
    expect(
      nameCollisions(opencodeNaming, [
        { server: "a.b", tool: "c" },
        { server: "a_b", tool: "c" },
        { server: "a", tool: "b_c" },
        { server: "x", tool: "y" },
      ]),
    ).toEqual([{ name: "a_b_c", tools: ["a.b:c", "a:b_c", "a_b:c"] }]);
  });

  test("Gemini CLI keeps dots but merges a_b:c with a:b_c, and cuts long names alike", () => {
    expect(geminiNaming.name("a.b", "c")).toBe("mcp_a.b_c");
    expect(
      nameCollisions(geminiNaming, [
        { server: "a.b", tool: "c" },
        { server: "a_b", tool: "c" },
        { server: "a", tool: "b_c" },
      ]),
    ).toEqual([{ name: "mcp_a_b_c", tools: ["a:b_c", "a_b:c"] }]);
    const long = "x".repeat(40);
    expect(
      nameCollisions(geminiNaming, [
        { server: "s", tool: `${long}_one_${long}` },
        { server: "s", tool: `${long}_two_${long}` },
      ]),
    ).toHaveLength(1);
  });

  test("servers whose prefixes overlap (a_ and a_b_, a.b_ and a_b_) are found", () => {
    expect(serverPrefixOverlaps(opencodeNaming, ["a.b", "a_b", "a", "zz"])).toEqual([
      { servers: ["a", "a.b"], prefixes: ["a_", "a_b_"] },
      { servers: ["a", "a_b"], prefixes: ["a_", "a_b_"] },
      { servers: ["a.b", "a_b"], prefixes: ["a_b_", "a_b_"] },
    ]);
    expect(serverPrefixOverlaps(opencodeNaming, ["shipping", "ledger"])).toEqual([]);
  });

  test("a session is refused when names collide, or when prefixes overlap and a server's tools are not all listed", () => {
    const servers = ["a.b", "a_b"];
    expect(() =>
      assertDistinctToolNames(opencodeNaming, servers, policy(["a.b:c", "a_b:c"], servers), false),
    ).toThrow(
      'The session\'s tool names collide in OpenCode: OpenCode names a.b:c, a_b:c all "a_b_c"',
    );
    const refused = (() => {
      try {
        assertDistinctToolNames(opencodeNaming, servers, policy(undefined, servers), false);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(ToolNameCollision);
    expect((refused as ToolNameCollision).names).toEqual(["a.b", "a_b"]);
    expect((refused as Error).message).toMatch(/servers "a.b" and "a_b" both "a_b_<tool>"/);
    expect((refused as Error).message).toMatch(/Rename one of the servers/);
    // Every tool listed, none colliding, nothing else offered: the names are all known.
    expect(() =>
      assertDistinctToolNames(opencodeNaming, servers, policy(["a.b:c", "a_b:d"], servers), false),
    ).not.toThrow();
    // ... unless the other tools are offered too.
    expect(() =>
      assertDistinctToolNames(opencodeNaming, servers, policy(["a.b:c", "a_b:d"], servers), true),
    ).toThrow(ToolNameCollision);
  });
});

describe("identification by what the protocol says", () => {
  const session = {
    servers: ["shipping", "ship.v2"],
    policy: policy(undefined, ["shipping", "ship.v2"]),
  };

  test("Gemini CLI: by kind and call id; the title only to recover a real name", () => {
    // As Gemini CLI 0.61 sends them (session/request_permission's toolCall, tool_call).
    const shell = {
      toolCallId: "run_shell_command__call_1",
      kind: "execute",
      title: "touch x # (shipping MCP Server)",
    };
    expect(identifyGeminiCall(shell, session)).toBeUndefined();
    expect(
      identifyGeminiCall(
        { ...shell, toolCallId: "mcp_shipping_x__call_1", kind: "execute" },
        session,
      ),
    ).toBeUndefined();
    expect(
      identifyGeminiCall(
        {
          toolCallId: "mcp_shipping_shipping_quote__call_1",
          kind: "other",
          title: "shipping_quote (shipping MCP Server)",
        },
        session,
      ),
    ).toEqual({ server: "shipping", tool: "shipping_quote" });
    // An MCP tool with a `command` argument is titled with the command: the id decides.
    expect(
      identifyGeminiCall(
        { toolCallId: "mcp_shipping_run__call_1", kind: "other", title: "x (ship.v2 MCP Server)" },
        session,
      ),
    ).toEqual({ server: "shipping", tool: "run" });
    expect(
      identifyGeminiCall(
        {
          toolCallId: "mcp_ship.v2_get.quote__c1",
          kind: "other",
          title: "get.quote (ship.v2 MCP Server)",
        },
        session,
      ),
    ).toEqual({ server: "ship.v2", tool: "get.quote" });
  });

  test("OpenCode: by kind and the title as a flattened name", () => {
    const listed = { servers: ["ship.v2"], policy: policy(["ship.v2:get.quote"], ["ship.v2"]) };
    const cases = [
      ["execute", "shipping_quote=1 touch x", session, undefined],
      ["execute", "shipping_shipping_quote", session, undefined],
      ["other", "shipping_shipping_quote", session, { server: "shipping", tool: "shipping_quote" }],
      ["other", "ship_v2_get_quote", listed, { server: "ship.v2", tool: "get.quote" }],
    ] as const;
    for (const [kind, title, context, identified] of cases) {
      expect(identifyOpencodeCall({ toolCallId: "call_1", kind, title }, context)).toEqual(
        identified,
      );
    }
  });

  test("any ACP agent: never from display text or an agent's own kind", () => {
    expect(
      identifyCall(
        { toolCallId: "x", kind: "other", title: "shipping_quote (shipping MCP Server)" },
        session,
      ),
    ).toBeUndefined();
    expect(
      identifyCall({ toolCallId: "mcp__shipping__shipping_quote", kind: "execute" }, session),
    ).toBeUndefined();
    expect(identifyCall({ toolCallId: "mcp__shipping__shipping_quote" }, session)).toEqual({
      server: "shipping",
      tool: "shipping_quote",
    });
  });
});

describe("live", () => {
  const t = perTestKit({
    script: {
      rules: [callRule("quote", "ship.v2:get.quote", { note: "one" }, "Quoted.")],
    },
    model: "each",
  });

  test.each([
    ["opencode", opencodeHarness, "chat-completions"],
    ["gemini", geminiHarness, "gemini"],
  ] as const)(
    "%s: servers a.b, a_b and a are refused before the agent starts, naming them",
    async (_name, harness: HarnessDefinition, dialect) => {
      const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
      const { launch, capture } = await acpLaunch(
        t.kit,
        selection(harness.name, t.model.providerFor(dialect)),
        [
          namedServer("a.b", ["c"], log),
          namedServer("a_b", ["c"], log),
          namedServer("a", ["b_c"], log),
        ],
      );
      t.captures.push(capture);
      const spawned = jest.spyOn(t.kit, "spawn");
      const error = await harness.open(launch).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ToolNameCollision);
      expect((error as Error).message).toMatch(/servers "a" and "a(\.|_)b"/);
      expect(spawned).not.toHaveBeenCalled();
      expect(calls(log)).toEqual([]);
    },
  );

  test.each([
    ["opencode", ["ship.v2:get.quote"], opencodeHarness, "chat-completions"],
    ["gemini", ["ship.v2:get.quote"], geminiHarness, "gemini"],
    ["gemini", undefined, geminiHarness, "gemini"],
  ] as const)(
    "%s (tools %j): a tool whose name the agent rewrote is one call, reported under its real name",
    async (_name, tools, harness: HarnessDefinition, dialect) => {
      const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
      const { launch, capture } = await acpLaunch(
        t.kit,
        selection(harness.name, t.model.providerFor(dialect)),
        [namedServer("ship.v2", ["get.quote"], log)],
        tools,
      );
      t.captures.push(capture);
      const session = (await harness.open(launch)) as AcpSession;
      t.pids.push(session.pid as number);
      const turn = await runTurn(session, capture, "turn-1", "Please quote.");
      expect(turn.outcome).toBe("completed");
      expect(calls(log)).toEqual([
        { server: "ship.v2", tool: "get.quote", arguments: { note: "one" } },
      ]);
      expectOneCallBothWays(turn, capture, "turn-1", "ship.v2", "get.quote");
    },
  );
});
