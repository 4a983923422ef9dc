import { writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Capability, ModelProvider, ToolPolicy } from "@jest-m3/core/harness";
import { allowedTools } from "../config.js";
import { resolveAgentExecutable } from "../executable.js";
import { agentEnvironment } from "../home.js";
import { resolveProfileOptions, type ResolvedCommonOptions } from "../options.js";
import { identifyCall } from "../reported-calls.js";
import type { AcpProfile } from "./profile.js";

/** The Gemini CLI versions this profile is tested with. */
export const GEMINI_TESTED = {
  min: "0.61.0",
  below: "0.62.0",
  packageName: "@google/gemini-cli",
} as const;

/** The configuration variable naming the Gemini CLI executable. */
export const GEMINI_EXECUTABLE_VARIABLE = "M3_GEMINI_EXECUTABLE";

/** The key variable Gemini CLI reads. */
const KEY_VARIABLE = "GEMINI_API_KEY";

/**
 * `~/.gemini/settings.json` in the fresh home: authentication by API key (the key itself
 * only ever in the environment), no usage statistics, no telemetry, no update checks.
 */
export const GEMINI_SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
} as const;

/** The name Gemini CLI gives an MCP tool: `mcp_<server>_<tool>`. */
export function geminiToolName(server: string, tool: string): string {
  return `mcp_${server}_${tool}`;
}

function rule(
  match: { toolName: string } | { mcpName: string },
  decision: "allow" | "deny" | "ask_user",
  priority: number,
): string {
  const [key, value] = Object.entries(match)[0] as [string, string];
  return `[[rule]]\n${key} = ${JSON.stringify(value)}\ndecision = "${decision}"\npriority = ${priority}\n`;
}

/**
 * The allow-list as a Gemini CLI policy file: every tool denied (a denied tool is not even
 * declared to the model, Gemini's own tools included), then each allowed MCP tool by its
 * full name (the short `mcpName` + `toolName` form, and a `mcp_<server>_*` wildcard, still
 * offer the tool but fail every call); a server whose tools are all allowed by its name
 * alone (`mcpName`). Allowed tools ask first: Gemini CLI shows a call's arguments only in its
 * permission request, so asking is what makes them evidence, and each answer is recorded.
 * With `exposeDisallowedTools`, the session's other MCP tools are offered too, and the
 * adapter refuses them when they ask.
 */
export function geminiPolicy(
  policy: ToolPolicy,
  servers: readonly string[],
  exposeDisallowedTools: boolean,
): string {
  const rules = [rule({ toolName: "*" }, "deny", 100)];
  for (const server of servers) {
    const tools = allowedTools(policy, server);
    if (exposeDisallowedTools || tools === undefined) {
      rules.push(rule({ mcpName: server }, "ask_user", 150));
    }
    for (const tool of tools ?? [])
      rules.push(rule({ toolName: geminiToolName(server, tool) }, "ask_user", 200));
  }
  return `# Written by jest-m3 for one session.\n${rules.join("\n")}`;
}

/**
 * Gemini CLI (`gemini --acp`, \@google/gemini-cli 0.61): the Gemini dialect at
 * `GOOGLE_GEMINI_BASE_URL`, the model by `-m` (which also skips the model router), the
 * allow-list as a policy file, the workspace trusted through its environment, stopped with
 * SIGTERM (closing stdin does not end it).
 */
export const geminiProfile: AcpProfile<ResolvedCommonOptions> = {
  name: "gemini",
  agent: "Gemini CLI",
  dialects: ["gemini"],
  tested: GEMINI_TESTED,
  elicitation: {
    status: "unsupported",
    reason:
      "Gemini CLI 0.61's MCP client declares only the roots capability and has no elicitation handler, so an MCP server's elicitation/create is answered with an error inside the agent and never reaches ACP",
  },
  resolveOptions: (options) => resolveProfileOptions("gemini", options),
  executable: (selection, config) =>
    resolveAgentExecutable(
      {
        agent: "Gemini CLI",
        variable: GEMINI_EXECUTABLE_VARIABLE,
        packageName: GEMINI_TESTED.packageName,
        binName: "gemini",
        installVersion: GEMINI_TESTED.min,
      },
      selection.executable,
      config,
    ),
  credentials(provider: ModelProvider | undefined, names: readonly string[]): Capability {
    if (provider) {
      if (provider.envKey !== undefined && !names.includes(provider.envKey)) {
        return {
          status: "unavailable",
          reason: `provider "${provider.name}" reads its key from ${provider.envKey}, which is not mapped; add credentialEnv: { ${provider.envKey}: "<PARENT_VARIABLE>" }`,
        };
      }
      return { status: "ready" };
    }
    if (names.includes(KEY_VARIABLE)) return { status: "ready" };
    return {
      status: "unavailable",
      reason:
        `no provider and no ${KEY_VARIABLE}: Gemini CLI's own login is not copied into the isolated ` +
        `home. Map a key with credentialEnv: { ${KEY_VARIABLE}: "<PARENT_VARIABLE>" }, or give a provider ` +
        `(the scripted model's providerFor("gemini"))`,
    };
  },
  async plan({ launch, home, options }) {
    const gemini = join(home.home, ".gemini");
    await mkdir(gemini, { recursive: true, mode: 0o700 });
    await writeFile(join(gemini, "settings.json"), JSON.stringify(GEMINI_SETTINGS, null, 2), {
      mode: 0o600,
    });
    const policyFile = join(home.root, "policy.toml");
    await writeFile(
      policyFile,
      geminiPolicy(
        launch.toolPolicy,
        launch.servers.map((server) => server.name),
        options.exposeDisallowedTools,
      ),
      { mode: 0o600 },
    );
    const extra: Record<string, string> = {
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
      // Nothing of the host's system-wide settings, defaults or trust list.
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(home.root, "no-system-settings.json"),
      GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(home.root, "no-system-defaults.json"),
      GEMINI_CLI_TRUSTED_FOLDERS_PATH: join(home.root, "no-trusted-folders.json"),
      NO_BROWSER: "true",
    };
    const provider = launch.provider;
    if (provider) {
      extra.GOOGLE_GEMINI_BASE_URL = provider.baseUrl;
      // Gemini CLI needs a key to start; a keyless provider (the scripted model) gets a dummy.
      extra[KEY_VARIABLE] =
        provider.envKey !== undefined ? (launch.env[provider.envKey] ?? "") : "m3-no-key";
    }
    return {
      args: ["--acp", "-m", launch.model, "--policy", policyFile],
      env: agentEnvironment(launch.env, home, extra),
    };
  },
  stop: () => "sigterm",
  identify: identifyCall,
};
