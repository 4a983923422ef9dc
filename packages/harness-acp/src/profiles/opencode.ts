import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ModelProvider, ToolPolicy } from "@jest-m3/core/harness";
import { testedRange } from "@jest-m3/core/adapter-kit";
import { allowedTools } from "../config.js";
import { agentEnvironment, skipPluginInstall } from "../home.js";
import { resolveProfileOptions, type ResolvedCommonOptions } from "../options.js";
import { InvalidAcpOptions } from "../errors.js";
import { mayBeMcpTool, type AgentToolCall, type SessionTools } from "../reported-calls.js";
import { identifyFlattened, opencodeNaming, type ToolIdentity } from "../tool-names.js";
import type { AcpProfile } from "./profile.js";
import { profileExecutable, providerModelCredentials } from "./lookup.js";

/** The OpenCode versions this profile is tested with. */
export const OPENCODE_TESTED = testedRange("1.18.33", "1.19.0", "opencode-ai");

/** The configuration variable naming the OpenCode executable. */
export const OPENCODE_EXECUTABLE_VARIABLE = "M3_OPENCODE_EXECUTABLE";

/**
 * The allow-list as OpenCode's `permission` map: everything denied (a denied tool is not
 * offered to the model, OpenCode's own tools included), each allowed MCP tool allowed, and
 * each of `builtinTools` allowed. With `exposeDisallowedTools`, the session's other MCP
 * tools are offered but ask first, and the adapter refuses them. `who` names the harness
 * and agent in the refusal of a `builtinTools` entry that reads as an MCP tool.
 */
export function opencodePermissions(
  policy: ToolPolicy,
  servers: readonly string[],
  exposeDisallowedTools: boolean,
  builtinTools: readonly string[] = [],
  who: { readonly harness: string; readonly agent: string } = {
    harness: "opencode",
    agent: "OpenCode",
  },
): Record<string, "allow" | "ask" | "deny"> {
  const permission: Record<string, "allow" | "ask" | "deny"> = { "*": "deny" };
  for (const name of builtinTools) {
    const mcp = servers.find((server) => name.startsWith(opencodeNaming.prefix(server)));
    if (mcp !== undefined) {
      throw new InvalidAcpOptions(
        who.harness,
        "builtinTools",
        `lists "${name}", which ${who.agent} would read as a tool of the server "${mcp}": builtinTools turns on ${who.agent}'s own tools (read, glob, bash, ...); MCP tools are chosen by the session's tools.`,
      );
    }
    permission[name] = "allow";
  }
  for (const server of servers) {
    const tools = allowedTools(policy, server);
    if (tools === undefined) permission[`${opencodeNaming.prefix(server)}*`] = "allow";
    else if (exposeDisallowedTools) permission[`${opencodeNaming.prefix(server)}*`] = "ask";
  }
  for (const server of servers) {
    for (const tool of allowedTools(policy, server) ?? []) {
      permission[opencodeNaming.name(server, tool)] = "allow";
    }
  }
  return permission;
}

/**
 * OpenCode's MCP identity of a call, from what the protocol says only: its `kind` must be
 * `other` (bash is `execute`, read `read`, ...), and its title, which for every tool but
 * the shell is the tool's name (the shell's is its command), must be the flattened name of
 * a tool of the session. OpenCode's ids are the model's call ids and say nothing of the tool.
 */
export function identifyOpencodeCall(
  call: AgentToolCall,
  { servers, policy }: SessionTools,
): ToolIdentity | undefined {
  if (!mayBeMcpTool(call) || !call.title || !/^[A-Za-z0-9_-]+$/.test(call.title)) {
    return undefined;
  }
  return identifyFlattened(opencodeNaming, call.title, servers, policy);
}

/** OpenCode's model id for a selection: `<provider>/<model>`. */
export function opencodeModel(provider: ModelProvider | undefined, model: string): string {
  return provider ? `${provider.name}/${model}` : model;
}

/**
 * The OpenCode configuration of a session (`OPENCODE_CONFIG`): the provider as an
 * OpenAI-compatible one whose key is referenced as `{env:NAME}` (never its value), the
 * model, no sharing, no auto-update, and the allow-list as the permission map.
 */
export function opencodeConfig(
  provider: ModelProvider | undefined,
  model: string,
  permission: Record<string, string>,
): Record<string, unknown> {
  const id = opencodeModel(provider, model);
  return {
    $schema: "https://opencode.ai/config.json",
    ...(provider
      ? {
          provider: {
            [provider.name]: {
              npm: "@ai-sdk/openai-compatible",
              name: provider.name,
              options: {
                baseURL: provider.baseUrl,
                ...(provider.envKey !== undefined ? { apiKey: `{env:${provider.envKey}}` } : {}),
              },
              models: { [model]: { name: model, tool_call: true } },
            },
          },
        }
      : {}),
    model: id,
    small_model: id,
    autoupdate: false,
    share: "disabled",
    permission,
  };
}

/**
 * OpenCode (`opencode acp`, opencode-ai 1.18): the Chat Completions dialect through its
 * OpenAI-compatible provider, configured by a file in the fresh home (`OPENCODE_CONFIG`,
 * project configuration off), the allow-list as its permission map, stopped by closing
 * stdin.
 */
export const opencodeProfile: AcpProfile<ResolvedCommonOptions> = {
  name: "opencode",
  agent: "OpenCode",
  dialects: ["chat-completions"],
  tested: OPENCODE_TESTED,
  elicitation: {
    status: "unsupported",
    reason:
      "OpenCode 1.18's MCP client declares only the roots capability and has no elicitation handler, so an MCP server's elicitation/create is answered with an error inside the agent and never reaches ACP",
  },
  // Eight sessions opened at once on one process left a session/new unanswered after 60 s
  // on a loaded two-core machine; three per process pass the fault matrix's load cell.
  warmSessions: 3,
  // Warm by default: its fault matrix passes every cell warm (three sessions a process).
  resolveOptions: (options) => resolveProfileOptions("opencode", options, { warm: true }),
  executable: profileExecutable(
    "OpenCode",
    OPENCODE_EXECUTABLE_VARIABLE,
    OPENCODE_TESTED,
    "opencode",
  ),
  credentials: providerModelCredentials("OpenCode"),
  async plan({ launch, home, options }) {
    const configFile = join(home.root, "opencode.json");
    const permission = opencodePermissions(
      launch.toolPolicy,
      launch.servers.map((server) => server.name),
      options.exposeDisallowedTools,
      options.builtinTools,
    );
    await writeFile(
      configFile,
      JSON.stringify(opencodeConfig(launch.provider, launch.model, permission), null, 2),
      { mode: 0o600 },
    );
    await skipPluginInstall(home, "opencode", "@opencode-ai/plugin");
    return {
      args: ["acp", "--pure"],
      env: agentEnvironment(launch.env, home, {
        OPENCODE_CONFIG: configFile,
        OPENCODE_DISABLE_PROJECT_CONFIG: "true",
        OPENCODE_DISABLE_AUTOUPDATE: "true",
        OPENCODE_DISABLE_MODELS_FETCH: "true",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "true",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "true",
        OPENCODE_DISABLE_CLAUDE_CODE: "true",
        OPENCODE_DISABLE_EXTERNAL_SKILLS: "true",
        OPENCODE_DISABLE_SHARE: "true",
        OPENCODE_DISABLE_EMBEDDED_WEB_UI: "true",
      }),
    };
  },
  stop: () => "stdin",
  naming: opencodeNaming,
  identify: identifyOpencodeCall,
};
