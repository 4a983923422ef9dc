/**
 * The chat-completions dialect against the real OpenCode (`opencode run --format json`), with
 * an @ai-sdk/openai-compatible provider at the scripted model and the shipping MCP server over
 * stdio: two turns (the second continues the session), one tool call each, and OpenCode's
 * title request answered as a side request.
 */
import { AgentProcess, SHIPPING_SERVER, agentBin } from "./agent-process";
import { agentRunPerTest, expectTwoQuotes, expectTwoTurnJournal, quoteScript } from "./scripts";

jest.setTimeout(200_000);

const perTest = agentRunPerTest();

test("OpenCode calls shipping_quote through the real MCP server on two turns", async () => {
  const model = await perTest.start(quoteScript("Turn {{turn}}: {{result}}."));
  const h = perTest.home();
  const provider = model.providerFor("chat-completions");
  expect(provider).toEqual({
    name: "scripted",
    baseUrl: `${model.url}/v1`,
    wireApi: "chat-completions",
  });
  const config = {
    provider: {
      scripted: {
        npm: "@ai-sdk/openai-compatible",
        options: { baseURL: provider.baseUrl, apiKey: "{env:SCRIPTED_API_KEY}" },
        models: { m1: { name: "m1", tool_call: true } },
      },
    },
    model: "scripted/m1",
    small_model: "scripted/m1",
    autoupdate: false,
    share: "disabled",
    permission: { "*": "deny", shipping_shipping_quote: "allow" },
    mcp: {
      shipping: {
        type: "local",
        command: [process.execPath, SHIPPING_SERVER],
        environment: { SHIPPING_CALL_LOG: h.callLog },
      },
    },
  };
  const run = async (prompt: string, extra: string[]) => {
    const agent = new AgentProcess(
      agentBin("opencode"),
      ["run", "--format", "json", ...extra, prompt],
      {
        cwd: h.workspace,
        env: {
          ...h.baseEnv(),
          SCRIPTED_API_KEY: "dummy",
          OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
          OPENCODE_DISABLE_PROJECT_CONFIG: "true",
          OPENCODE_DISABLE_AUTOUPDATE: "true",
          OPENCODE_DISABLE_MODELS_FETCH: "true",
          OPENCODE_DISABLE_LSP_DOWNLOAD: "true",
          // No background plugin install (it would reach for a package registry), no watchers.
          OPENCODE_DISABLE_DEFAULT_PLUGINS: "true",
          OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: "true",
          OPENCODE_DISABLE_CLAUDE_CODE: "true",
          OPENCODE_DISABLE_EXTERNAL_SKILLS: "true",
        },
      },
    );
    perTest.agents.push(agent);
    agent.child.stdin.end();
    const code = await agent.finish(90_000);
    expect({ code, stderr: code === 0 ? "" : agent.stderr }).toEqual({ code: 0, stderr: "" });
    const events = agent.events();
    const texts = events.filter((e) => e.type === "text").map((e) => String(e.part?.text));
    const session = events.find((e) => typeof e.sessionID === "string")?.sessionID as string;
    return { texts, session };
  };
  const first = await run("Please quote 2 kg local.", []);
  expect(first.texts.join("")).toBe("Turn 1: Quote calculated.");
  const second = await run("Now quote 3 kg regional.", ["--session", first.session]);
  expect(second.texts.join("")).toBe("Turn 2: Quote calculated.");

  expectTwoQuotes(h);
  expectTwoTurnJournal(
    model,
    {
      dialect: "chat-completions",
      decision: { kind: "side", purpose: "title" },
    },
    "shipping_shipping_quote",
  );
});
