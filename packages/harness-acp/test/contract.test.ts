/**
 * The contract: what the adapter and each profile rely on is still there, so an upgrade of
 * the SDK, Gemini CLI or OpenCode that renames or drops it fails here, loudly, instead of
 * in a session. Three layers: the ACP schema the SDK ships (methods, updates, fields), the
 * installed agents' own text (flags, variables, settings, tool naming), and each agent live
 * (what `initialize` and `session/new` answer under the profile's settings).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import {
  createAgentHome,
  geminiProfile,
  loadAcpSdk,
  opencodeProfile,
  PROTOCOL_SURFACE,
  type AcpProfile,
} from "@jest-m3/harness-acp";
import { acpLaunch, selection, withAcpClient } from "./support/acp";

jest.setTimeout(120_000);

type Schema = { [key: string]: unknown };
const defs = (
  JSON.parse(
    readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json"), "utf8"),
  ) as { $defs: Record<string, Schema> }
).$defs;

/** Every `const` among a definition's alternatives (and their `properties` of `key`). */
function constants(name: string, key?: string): string[] {
  const found: string[] = [];
  for (const variant of (defs[name]?.oneOf ?? defs[name]?.anyOf ?? []) as Schema[]) {
    const node = key
      ? ((variant.properties as Schema | undefined)?.[key] as Schema | undefined)
      : variant;
    if (typeof node?.const === "string") found.push(node.const);
  }
  return found;
}

function missing(have: readonly string[], wanted: readonly string[]): string[] {
  return wanted.filter((name) => !have.includes(name));
}

describe("the ACP schema of the pinned SDK", () => {
  test("every method the adapter calls or answers exists", async () => {
    const sdk = await loadAcpSdk();
    const agentMethods = Object.values(sdk.AGENT_METHODS as Record<string, string>);
    const clientMethods = Object.values(sdk.CLIENT_METHODS as Record<string, string>);
    expect(missing(agentMethods, PROTOCOL_SURFACE.agentRequests)).toEqual([]);
    expect(missing(agentMethods, PROTOCOL_SURFACE.agentNotifications)).toEqual([]);
    expect(missing(clientMethods, PROTOCOL_SURFACE.clientRequests)).toEqual([]);
    expect(missing(clientMethods, PROTOCOL_SURFACE.clientNotifications)).toEqual([]);
    expect(sdk.PROTOCOL_VERSION).toBe(1);
  });

  test("the updates, tool call fields, stop reasons and permission kinds the adapter reads", () => {
    expect(
      missing(constants("SessionUpdate", "sessionUpdate"), PROTOCOL_SURFACE.sessionUpdates),
    ).toEqual([]);
    const fields = Object.keys((defs.ToolCall?.properties ?? {}) as Schema);
    expect(missing(fields, PROTOCOL_SURFACE.toolCallFields)).toEqual([]);
    expect(missing(constants("StopReason"), PROTOCOL_SURFACE.stopReasons)).toEqual([]);
    expect(
      missing(constants("PermissionOptionKind"), PROTOCOL_SURFACE.permissionOptionKinds),
    ).toEqual([]);
    expect(Object.keys((defs.McpCapabilities?.properties ?? {}) as Schema)).toContain("http");
    expect(Object.keys((defs.McpServerStdio?.properties ?? {}) as Schema)).toEqual(
      expect.arrayContaining(["name", "command", "args", "env"]),
    );
  });
});

/** The installed agent's own text, to search for what a profile relies on. */
function agentText(profile: AcpProfile): string {
  const lookup = profile.executable(
    selection(profile.name, undefined),
    {},
    profile.resolveOptions({}),
  );
  if (!lookup.found) throw new Error(lookup.reason);
  if (lookup.command === process.execPath) {
    const bundle = dirname(lookup.path);
    return readdirSync(bundle)
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(join(bundle, name), "latin1"))
      .join("\n");
  }
  return readFileSync(lookup.path, "latin1");
}

/** Every one of `needles` is in the installed agent's code (see agentText). */
function expectMentions(profile: Parameters<typeof agentText>[0], needles: readonly string[]) {
  const text = agentText(profile);
  expect(needles.filter((needle) => !text.includes(needle))).toEqual([]);
}

test("Gemini CLI still has the flags, variables, settings and names the profile uses", () => {
  expectMentions(geminiProfile, [
    '"acp"',
    '"policy"',
    "GEMINI_CLI_TRUST_WORKSPACE",
    "GEMINI_CLI_NO_RELAUNCH",
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
    "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    "GOOGLE_GEMINI_BASE_URL",
    "GEMINI_API_KEY",
    "gemini-api-key",
    "usageStatisticsEnabled",
    "enableAutoUpdateNotification",
    'MCP_TOOL_PREFIX = "mcp_"',
    "MCP Server)",
    "mcpName",
    "ask_user",
    // Its own tools registered only as tools.core lists them (builtinTools).
    "coreTools: settings.tools?.core",
    // MCP tools: kind "other", call ids "<function name>__<model call id>", function names
    // by generateValidName (tool-names.ts), checked at call time against "mcp_<server>".
    '"other" /* Other */,',
    "startsWith(`${name3}__`)",
    'validToolname.replace(/[^a-zA-Z0-9_\\-.:]/g, "_")',
    "generateValidName(serverName)",
    // The one wildcard that matches an MCP tool both when declared and when called.
    "return `${MCP_TOOL_PREFIX}*`",
  ]);
});

test("OpenCode still has the variables, provider package and permission names the profile uses", () => {
  expectMentions(opencodeProfile, [
    "OPENCODE_CONFIG",
    "OPENCODE_DISABLE_PROJECT_CONFIG",
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS",
    "OPENCODE_DISABLE_SHARE",
    "@ai-sdk/openai-compatible",
    "small_model",
    "run without external plugins",
    // MCP tool names (tool-names.ts), bash's kind, the title of a call (tool name, or the
    // shell's command), and how it refuses a call its permission rules deny.
    '.replace(/[^a-zA-Z0-9_-]/g,"_")',
    'case"bash":case"shell":return"execute"',
    "title:YC(C.toolName,C.state.input,C.state.title),kind:$C(C.toolName)",
    "prevents you from using this specific tool call",
    // Its plugin package, installed into each config folder whose lock file does not list
    // it (skipPluginInstall marks it listed in the fresh home).
    'add:[{name:"@opencode-ai/plugin"',
    "Npm.checkDirty",
    '"package-lock.json"',
  ]);
});

test("OpenCode started from the profile's plan installs nothing from the npm registry", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const provider = {
    name: "scripted",
    baseUrl: "http://127.0.0.1:9/v1",
    wireApi: "chat-completions",
  } as const;
  const { launch } = await acpLaunch(kit, selection("opencode", provider), []);
  const options = opencodeProfile.resolveOptions({});
  const executable = opencodeProfile.executable(launch.selection, {}, options);
  if (!executable.found) throw new Error(executable.reason);
  const home = await createAgentHome(await kit.tempDir("m3-contract-"));
  const plan = await opencodeProfile.plan({ launch, home, options, executable });
  const installed = join(home.configHome, "opencode", "node_modules");
  await withAcpClient(
    kit,
    opencodeProfile.agent,
    {
      label: "opencode",
      command: executable.command,
      args: [...executable.prefix, ...plan.args],
      env: plan.env,
      cwd: launch.workspace,
    },
    opencodeProfile.stop(options),
    async (client) => {
      await client.call(
        "session/new",
        { cwd: launch.workspace, mcpServers: [] },
        { timeoutMs: 60_000 },
      );
      // Unmarked, the install fills the folder (64 MB) within a few seconds of the start.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      expect(readdirSync(installed)).toEqual([]);
    },
    2000,
  );
});

describe.each([
  ["gemini", geminiProfile, { name: "scripted", baseUrl: "http://127.0.0.1:9", wireApi: "gemini" }],
  [
    "opencode",
    opencodeProfile,
    { name: "scripted", baseUrl: "http://127.0.0.1:9/v1", wireApi: "chat-completions" },
  ],
] as const)("%s live, under the profile's settings", (name, profile, provider) => {
  test("initialize: ACP 1 with stdio and HTTP MCP servers; session/new runs the selection's model", async () => {
    await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    const { launch } = await acpLaunch(kit, selection(name, provider), []);
    const options = profile.resolveOptions({});
    const executable = profile.executable(launch.selection, {}, options);
    if (!executable.found) throw new Error(executable.reason);
    const home = await createAgentHome(await kit.tempDir("m3-contract-"));
    const plan = await profile.plan({ launch, home, options, executable });
    await withAcpClient(
      kit,
      profile.agent,
      {
        label: name,
        command: executable.command,
        args: [...executable.prefix, ...plan.args],
        env: plan.env,
        cwd: launch.workspace,
      },
      profile.stop(options),
      async (client, init) => {
        expect(init.authMethods ?? []).not.toContainEqual(
          expect.objectContaining({ required: true }),
        );
        const session = await client.call(
          "session/new",
          { cwd: launch.workspace, mcpServers: [] },
          { timeoutMs: 60_000 },
        );
        expect(typeof session.sessionId).toBe("string");
        const models = (session as { models?: { currentModelId?: string } }).models;
        const modelOption = (session.configOptions ?? []).find((option) => option.id === "model");
        // Gemini CLI reports the `-m` model; OpenCode the configuration's `<provider>/<model>`.
        const current =
          models?.currentModelId ?? (modelOption as { currentValue?: string })?.currentValue;
        expect(current).toBe(name === "gemini" ? "scripted-1" : "scripted/scripted-1");
      },
      2000,
    );
  });
});
