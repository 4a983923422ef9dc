/**
 * The gemini dialect against the real Gemini CLI (headless, `--output-format json`), with the
 * shipping MCP server over stdio: two turns (the second resumes the session), one tool call
 * each, and the CLI's router call in JSON mode answered as a side request.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentProcess, SHIPPING_SERVER, agentBin } from "./agent-process";
import { agentRunPerTest, expectTwoQuotes, expectTwoTurnJournal, quoteScript } from "./scripts";

jest.setTimeout(90_000);

const perTest = agentRunPerTest();

test("Gemini CLI calls shipping_quote through the real MCP server on two turns", async () => {
  const model = await perTest.start(quoteScript("Turn {{turn}}: {{result}}."));
  const h = perTest.home();
  const settings = {
    security: { auth: { selectedType: "gemini-api-key" } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    mcpServers: {
      shipping: {
        command: process.execPath,
        args: [SHIPPING_SERVER],
        env: { SHIPPING_CALL_LOG: h.callLog },
      },
    },
  };
  writeFileSync(join(h.dir("home/.gemini"), "settings.json"), JSON.stringify(settings));
  const policy = join(h.root, "policy.toml");
  writeFileSync(
    policy,
    [
      "[[rule]]",
      'toolName = "*"',
      'decision = "deny"',
      "priority = 100",
      "[[rule]]",
      'toolName = "mcp_shipping_shipping_quote"',
      'decision = "allow"',
      "priority = 200",
      "",
    ].join("\n"),
  );
  const provider = model.providerFor("gemini");
  expect(provider).toEqual({ name: "scripted", baseUrl: model.url, wireApi: "gemini" });
  const run = async (prompt: string, extra: string[]) => {
    const agent = new AgentProcess(
      agentBin("gemini"),
      ["-p", prompt, "--output-format", "json", "--policy", policy, ...extra],
      {
        cwd: h.workspace,
        env: {
          ...h.baseEnv(),
          GEMINI_API_KEY: "dummy",
          GOOGLE_GEMINI_BASE_URL: provider.baseUrl,
          GEMINI_CLI_TRUST_WORKSPACE: "true",
          GEMINI_CLI_NO_RELAUNCH: "true",
          GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(h.root, "no-system-settings.json"),
        },
      },
    );
    perTest.agents.push(agent);
    const code = await agent.finish(60_000);
    expect({ code, stderr: code === 0 ? "" : agent.stderr }).toEqual({ code: 0, stderr: "" });
    return JSON.parse(agent.stdout) as { response: string; session_id: string };
  };
  // Turn 1 with the CLI's default model: its router asks first, in JSON mode.
  const first = await run("Please quote 2 kg local.", []);
  expect(first.response).toBe("Turn 1: Quote calculated.");
  const second = await run("Now quote 3 kg regional.", ["-m", "scripted-1", "--resume", "latest"]);
  expect(second.session_id).toBe(first.session_id);
  expect(second.response).toBe("Turn 2: Quote calculated.");

  expectTwoQuotes(h);
  expectTwoTurnJournal(
    model,
    {
      dialect: "gemini",
      decision: { kind: "side", purpose: "routing" },
      status: 200,
    },
    "mcp_shipping_shipping_quote",
  );
});
