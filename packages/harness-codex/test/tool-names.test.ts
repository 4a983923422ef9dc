/**
 * Codex 0.171 cannot merge two MCP tools under one name, so its adapter refuses nothing: it
 * offers each server as a namespace `mcp__<server>` holding the tools by name (so server `a`
 * tool `b__c` and server `a__b` tool `c` stay apart, unlike a flat `mcp__<server>__<tool>`),
 * and where sanitizing (characters outside `[A-Za-z0-9_-]` as `_`) would merge two
 * namespaces or two tools, it gives each a hash suffix (`mcp__a_b_<12 hex>`). Its reported
 * calls carry the server and tool as the session names them. Ground truth: the servers' own
 * call logs, the wire capture and what the scripted model was offered.
 */
import { join } from "node:path";
import { type StdioServer, type WireCapture } from "@jest-m3/core";
import codexHarness from "@jest-m3/harness-codex";
import { type ScriptedModel } from "@jest-m3/scripted-model";
import {
  expectOneCallBothWays,
  namedCallLog as calls,
  namedToolsServer as namedServer,
  perTestKit,
} from "@jest-m3/test-support";
import type { CodexSession } from "../src/session";
import { codexLaunch, codexSelection, turnRequest } from "./support/codex";

jest.setTimeout(90_000);

interface OfferedTool {
  readonly type: string;
  readonly name: string;
  readonly tools?: readonly { readonly name: string }[];
}

/** The MCP namespaces of the first request Codex sent, each with its tools' names. */
function offeredNamespaces(model: ScriptedModel): [string, string[]][] {
  const body = model.journal.entries[0]?.body as { tools?: OfferedTool[] } | undefined;
  return (body?.tools ?? [])
    .filter((tool) => tool.type === "namespace" && tool.name.startsWith("mcp__"))
    .map((tool): [string, string[]] => [tool.name, (tool.tools ?? []).map((t) => t.name)])
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

describe("Codex's namespaced tool names", () => {
  const t = perTestKit({
    script: {
      rules: [
        {
          name: "nested",
          when: { user: "nested" },
          steps: [{ call: "a__b:c", args: { note: "one" } }, { reply: "Done." }],
        },
        { name: "hello", when: { user: "hello" }, steps: [{ reply: "Hello." }] },
      ],
    },
    model: "each",
  });

  async function open(servers: readonly StdioServer[]): Promise<{
    session: CodexSession;
    capture: WireCapture;
  }> {
    const { launch, capture } = await codexLaunch(
      t.kit,
      codexSelection(t.model.providerFor("responses")),
      servers,
    );
    t.captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    t.pids.push(session.pid as number);
    return { session, capture };
  }

  test("servers a and a__b (tools b__c and c) open; a call of a__b:c is one record, on a__b", async () => {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    const { session, capture } = await open([
      namedServer("a", ["b__c"], log),
      namedServer("a__b", ["c"], log),
    ]);
    capture.beginTurn("turn-1");
    const turn = await session.send(turnRequest("Please run the nested one.", "turn-1").request);
    await capture.endTurn();

    expect(turn.outcome).toBe("completed");
    expect(offeredNamespaces(t.model)).toEqual([
      ["mcp__a", ["b__c"]],
      ["mcp__a__b", ["c"]],
    ]);
    expect(calls(log)).toEqual([{ server: "a__b", tool: "c", arguments: { note: "one" } }]);
    expectOneCallBothWays(turn, capture, "turn-1", "a__b", "c");
  });

  test("servers a.b and a_b, and tools y.z and y_z, open under names Codex keeps distinct", async () => {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    const { session, capture } = await open([
      namedServer("a.b", ["c"], log),
      namedServer("a_b", ["c"], log),
      namedServer("x", ["y.z", "y_z"], log),
    ]);
    capture.beginTurn("turn-1");
    const turn = await session.send(turnRequest("hello", "turn-1").request);
    await capture.endTurn();

    expect(turn.outcome).toBe("completed");
    const namespaces = offeredNamespaces(t.model);
    const ab = namespaces.filter(([name]) => /^mcp__a_b_[0-9a-f]{12}$/.test(name));
    expect(ab.map(([, tools]) => tools)).toEqual([["c"], ["c"]]);
    expect(new Set(ab.map(([name]) => name)).size).toBe(2);
    const x = namespaces.find(([name]) => name === "mcp__x")?.[1] ?? [];
    expect(x).toHaveLength(2);
    expect(x.every((tool) => /^y_z_[0-9a-f]{12}$/.test(tool))).toBe(true);
    expect(new Set(x).size).toBe(2);
    expect(calls(log)).toEqual([]);
  });
});
