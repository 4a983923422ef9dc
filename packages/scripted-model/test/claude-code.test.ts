/**
 * The anthropic-messages dialect against the real Claude Code binary (stream-json mode), with
 * the shipping MCP server over stdio: a two-turn conversation, one tool call per turn.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedModel } from "@jest-m3/scripted-model";
import { AgentProcess, SHIPPING_SERVER, agentBin, type TempHome } from "./agent-process";
import { agentRunPerTest, expectTwoQuotes, QUOTE, quoteScript } from "./scripts";

jest.setTimeout(90_000);

const perTest = agentRunPerTest();

const userLine = (text: string) =>
  `${JSON.stringify({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" })}\n`;

/** Starts Claude Code in stream-json mode on a fresh home, with the shipping server. */
function launch(m: ScriptedModel, h: TempHome, tools: string[]): AgentProcess {
  const mcp = {
    mcpServers: {
      shipping: {
        type: "stdio",
        command: process.execPath,
        args: [SHIPPING_SERVER],
        env: { SHIPPING_CALL_LOG: h.callLog },
      },
    },
  };
  writeFileSync(join(h.root, "mcp.json"), JSON.stringify(mcp));
  const agent = new AgentProcess(
    agentBin("claude"),
    [
      "-p",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--verbose",
      "--mcp-config",
      join(h.root, "mcp.json"),
      "--strict-mcp-config",
      "--setting-sources",
      "",
      ...tools,
      "--allowedTools",
      "mcp__shipping__shipping_quote",
      "--model",
      "scripted-model",
    ],
    {
      cwd: h.workspace,
      env: {
        ...h.baseEnv(),
        CLAUDE_CONFIG_DIR: h.dir("config"),
        ANTHROPIC_BASE_URL: m.providerFor("anthropic-messages").baseUrl,
        ANTHROPIC_API_KEY: "dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_MAX_RETRIES: "0",
      },
    },
  );
  perTest.agents.push(agent);
  return agent;
}

const results = (events: Record<string, unknown>[]) => events.filter((e) => e.type === "result");

test("Claude Code calls shipping_quote through the real MCP server on two turns", async () => {
  const model = await perTest.start(
    quoteScript("Turn {{turn}}: shipping costs {{result.amount}} {{result.currency}}."),
  );
  const home = perTest.home();
  const provider = model.providerFor("anthropic-messages");
  expect(provider).toEqual({ name: "scripted", baseUrl: model.url, wireApi: "anthropic-messages" });
  // Only MCP tools: Claude Code then offers them inline.
  const agent = launch(model, home, ["--tools", ""]);
  agent.child.stdin.write(userLine("Please quote 2 kg local."));
  await agent.waitFor((events) => results(events).length >= 1, 60_000);
  agent.child.stdin.write(userLine("Now quote 3 kg regional."));
  await agent.waitFor((events) => results(events).length >= 2, 30_000);
  agent.child.stdin.end();
  expect(await agent.finish(15_000)).toBe(0);

  const [first, second] = results(agent.events());
  expect(first).toMatchObject({ is_error: false, result: "Turn 1: shipping costs 9 USD." });
  expect(second).toMatchObject({ is_error: false, result: "Turn 2: shipping costs 15.5 USD." });
  expectTwoQuotes(home);
  const main = model.journal.entries.filter((e) => !e.side);
  expect(main.every((e) => e.dialect === "anthropic-messages")).toBe(true);
  expect(model.journal.decisions.map((d) => d.kind)).toEqual(["call", "reply", "call", "reply"]);
  expect(main[0]?.conversation?.offeredTools).toEqual(["shipping:shipping_quote"]);
  model.journal.assertNoProblems();
});

test("with its built-in tools, Claude Code lists MCP tools as deferred: ToolSearch loads it first", async () => {
  const model = await perTest.start(QUOTE);
  const home = perTest.home();
  const agent = launch(model, home, []);
  agent.child.stdin.write(userLine("Please quote 2 kg local."));
  await agent.waitFor((events) => results(events).length >= 1, 60_000);
  agent.child.stdin.end();
  expect(await agent.finish(15_000)).toBe(0);
  expect(results(agent.events())[0]).toMatchObject({
    is_error: false,
    result: "Shipping costs 9 USD.",
  });
  expect(home.calls()).toEqual([
    { tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } },
  ]);
  expect(model.journal.decisions).toMatchObject([
    { kind: "tool_search", query: "select:mcp__shipping__shipping_quote" },
    { kind: "call", calls: [{ name: "mcp__shipping__shipping_quote" }] },
    { kind: "reply" },
  ]);
  model.journal.assertNoProblems();
});
