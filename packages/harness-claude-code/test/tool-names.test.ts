/**
 * Claude Code's flattened MCP tool names (`mcp__<server>__<tool>`, characters outside
 * `[a-zA-Z0-9_-]` as `_`): a session whose names would collide is refused before Claude Code
 * starts (a stand-in executable proves it never ran), naming the servers or tools and the
 * fix; names that stay distinct under the rule open, and a call of one is one record on the
 * right server. Ground truth: the servers' own call logs and the wire capture.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nameCollisions, serverPrefixOverlaps, ToolNameCollision } from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core/harness";
import claudeCodeHarness, {
  claudeCodeNaming,
  type ClaudeCodeSession,
} from "@jest-m3/harness-claude-code";
import {
  callRule,
  expectOneCallBothWays,
  namedCallLog as calls,
  namedToolsServer as namedServer,
  perTestKit,
} from "@jest-m3/test-support";
import { claudeLaunch, claudeSelection, turn } from "./support/claude";

jest.setTimeout(90_000);

describe("Claude Code's naming rule", () => {
  test("a.b:c and a_b:c are both mcp__a_b__c; a.b and a-b stay apart", () => {
    expect(claudeCodeNaming.name("a.b", "c")).toBe("mcp__a_b__c");
    expect(claudeCodeNaming.name("a-b", "c")).toBe("mcp__a-b__c");
    expect(
      nameCollisions(claudeCodeNaming, [
        { server: "a.b", tool: "c" },
        { server: "a_b", tool: "c" },
        { server: "a-b", tool: "c" },
        { server: "a", tool: "b__c" },
        { server: "a__b", tool: "c" },
      ]),
    ).toEqual([
      { name: "mcp__a_b__c", tools: ["a.b:c", "a_b:c"] },
      { name: "mcp__a__b__c", tools: ["a:b__c", "a__b:c"] },
    ]);
    expect(serverPrefixOverlaps(claudeCodeNaming, ["a", "a__b", "a-b", "a.b"])).toEqual([
      { servers: ["a", "a__b"], prefixes: ["mcp__a__", "mcp__a__b__"] },
    ]);
  });
});

describe("Claude Code sessions", () => {
  const t = perTestKit({
    script: {
      rules: [callRule("dotted", "a.b:c", { note: "one" }, "Done.")],
    },
    model: "each",
  });
  let tripwire: { path: string; ran: () => boolean } | undefined;
  beforeEach(() => {
    tripwire = undefined;
  });

  async function standIn(): Promise<{ path: string; ran: () => boolean }> {
    const dir = await t.kit.tempDir("m3-tripwire-");
    const marker = join(dir, "ran");
    const path = join(dir, "claude");
    writeFileSync(path, `#!/bin/sh\necho "$@" >> "${marker}"\nexit 3\n`);
    chmodSync(path, 0o755);
    return { path, ran: () => existsSync(marker) };
  }

  /**
   * Opens with the stand-in executable instead of Claude Code, on the named-tools servers
   * `servers` (name and tools) logging to one call log; the error it fails with, and the log.
   */
  async function openWithStandIn(
    servers: readonly (readonly [string, readonly string[]])[],
    tools?: readonly string[],
  ): Promise<{ error: unknown; log: string }> {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    tripwire = await standIn();
    const selection = claudeSelection(t.model.providerFor("anthropic-messages"));
    const named = servers.map(([name, offered]) => namedServer(name, [...offered], log));
    const { launch, capture } = await claudeLaunch(t.kit, selection, named, tools);
    t.captures.push(capture);
    const opened = claudeCodeHarness.open({
      ...launch,
      config: { ...launch.config, M3_CLAUDE_CODE_EXECUTABLE: tripwire.path },
    });
    const error = await opened.then(
      () => new Error("opened"),
      (failure: unknown) => failure,
    );
    return { error, log };
  }

  test("two listed tools with one name are refused before Claude Code starts", async () => {
    const { error, log } = await openWithStandIn(
      [
        ["a.b", ["c"]],
        ["a_b", ["c"]],
      ],
      ["a.b:c", "a_b:c"],
    );
    expect(error).toBeInstanceOf(ToolNameCollision);
    expect((error as ToolNameCollision).code).toBe("M3_INVALID_SESSION_OPTIONS");
    expect((error as ToolNameCollision).names).toEqual(["a.b:c", "a_b:c"]);
    expect((error as Error).message).toMatch(/Claude Code names a\.b:c, a_b:c all "mcp__a_b__c"/);
    expect((error as Error).message).toMatch(/Rename one of their servers/);
    expect(tripwire?.ran()).toBe(false);
    expect(calls(log)).toEqual([]);
  });

  test("servers a and a__b with unlisted tools are refused before Claude Code starts", async () => {
    const { error } = await openWithStandIn([
      ["a", ["b__c"]],
      ["a__b", ["c"]],
    ]);
    expect(error).toBeInstanceOf(ToolNameCollision);
    expect((error as ToolNameCollision).names).toEqual(["a", "a__b"]);
    expect((error as Error).message).toMatch(
      /servers "a" and "a__b" "mcp__a__<tool>" and "mcp__a__b__<tool>"/,
    );
    expect((error as Error).message).toMatch(/Rename one of the servers .* or list the tools/);
    expect(tripwire?.ran()).toBe(false);
  });

  test("the stand-in does run when the names are distinct (so it would have seen a spawn)", async () => {
    const { error } = await openWithStandIn([
      ["a.b", ["c"]],
      ["a-b", ["c"]],
    ]);
    expect(error).toBeInstanceOf(HarnessStartError);
    expect(tripwire?.ran()).toBe(true);
  });

  test("servers a.b and a-b open; a call of a.b:c is one record, on a.b, seen both ways", async () => {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture } = await claudeLaunch(
      t.kit,
      claudeSelection(t.model.providerFor("anthropic-messages")),
      [namedServer("a.b", ["c"], log), namedServer("a-b", ["c"], log)],
    );
    t.captures.push(capture);
    const session = (await claudeCodeHarness.open(launch)) as ClaudeCodeSession;
    t.pids.push(session.pid as number);

    const result = await turn(session, capture, "turn-1", "Please run the dotted one.");

    expect(result.outcome).toBe("completed");
    expect(calls(log)).toEqual([{ server: "a.b", tool: "c", arguments: { note: "one" } }]);
    expectOneCallBothWays(result, capture, "turn-1", "a.b", "c");
  });
});
