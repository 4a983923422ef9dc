import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import type { ToolPolicy } from "@jest-m3/core/harness";
import { testedRange } from "@jest-m3/core/adapter-kit";
import { allowedTools } from "../config.js";
import { agentEnvironment, writeSettings } from "../home.js";
import { resolveProfileOptions, type ResolvedCommonOptions } from "../options.js";
import { mayBeMcpTool, type AgentToolCall, type SessionTools } from "../reported-calls.js";
import { geminiNaming, identifyFlattened, type ToolIdentity } from "../tool-names.js";
import type { AcpProfile } from "./profile.js";
import { keyCredentials, profileExecutable, providerKey, refuseMcpToolNames } from "./lookup.js";

/** The Gemini CLI versions this profile is tested with. */
export const GEMINI_TESTED = testedRange("0.61.0", "0.62.0", "@google/gemini-cli");

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

/**
 * `~/.gemini/settings.json` of one session: {@link GEMINI_SETTINGS}, and Gemini CLI's own
 * tools registered only as `builtinTools` lists them (`tools.core`; an empty list registers
 * none, so the model is not even told of them).
 */
export function geminiSettings(builtinTools: readonly string[]): Record<string, unknown> {
  return { ...GEMINI_SETTINGS, tools: { core: [...builtinTools] } };
}

function rule(
  match: { readonly toolName: string; readonly mcpName?: string },
  decision: "allow" | "deny" | "ask_user",
  priority: number,
): string {
  const keys = Object.entries(match)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}\n`)
    .join("");
  return `[[rule]]\n${keys}decision = "${decision}"\npriority = ${priority}\n`;
}

/**
 * The allow-list as a Gemini CLI policy file: every tool denied (a denied tool is not even
 * declared to the model), then each allowed MCP tool by its full name. Allowed tools ask
 * first: Gemini CLI shows a call's arguments only in its permission request, so asking is
 * what makes them evidence, and each answer is recorded.
 *
 * A server whose tools are all allowed (no list), and every server with
 * `exposeDisallowedTools`, needs a rule by server. Gemini CLI 0.61 checks a call against
 * the server name `mcp_<server>` while it declares tools under `<server>`, so an
 * `mcpName` rule or a `mcp_<server>_*` wildcard offers the tool and then denies every
 * call. Only `mcp_*` (any MCP tool) matches both ways: it asks, and the adapter answers
 * from the allow-list. Without `exposeDisallowedTools` the listed servers' other tools are
 * then hidden by `mcpName` deny rules, which do match when tools are declared (a call to a
 * hidden tool would still ask, and be refused).
 *
 * Every rule sits above the deny-all that `tools.core` adds (user tier priority 0.24).
 */
export function geminiPolicy(
  policy: ToolPolicy,
  servers: readonly string[],
  exposeDisallowedTools: boolean,
): string {
  const rules = [rule({ toolName: "*" }, "deny", 100)];
  const listed = servers.map((server) => ({ server, tools: allowedTools(policy, server) }));
  const anyTool = exposeDisallowedTools || listed.some(({ tools }) => tools === undefined);
  if (anyTool) rules.push(rule({ toolName: "mcp_*" }, "ask_user", 300));
  for (const { server, tools } of listed) {
    if (anyTool && !exposeDisallowedTools && tools !== undefined) {
      rules.push(rule({ mcpName: server, toolName: "*" }, "deny", 350));
    }
    for (const tool of tools ?? [])
      rules.push(rule({ toolName: geminiNaming.name(server, tool) }, "ask_user", 400));
  }
  return `# Written by jest-m3 for one session.\n${rules.join("\n")}`;
}

/**
 * Gemini CLI's MCP identity of a call, from what the protocol says only: its `kind` must be
 * `other` (run_shell_command is `execute`, read_file `read`, ...), and its id, which Gemini
 * CLI builds as `<function name>__<model call id>`, must start with the function name of a
 * tool of the session. The title is display text (for any tool with a `command` argument
 * it is that command); it is read only as `<tool> (<server> MCP Server)` to recover a name
 * Gemini CLI rewrote, and only when the id starts with that very tool's function name.
 */
export function identifyGeminiCall(
  call: AgentToolCall,
  { servers, policy }: SessionTools,
): ToolIdentity | undefined {
  if (!mayBeMcpTool(call)) return undefined;
  const id = call.toolCallId;
  const display = call.title ? /^(.+) \((.+) MCP Server\)$/.exec(call.title) : null;
  if (display) {
    const [, tool = "", server = ""] = display;
    if (servers.includes(server) && id.startsWith(`${geminiNaming.name(server, tool)}__`)) {
      return { server, tool };
    }
  }
  const cut = id.lastIndexOf("__");
  if (cut <= 0) return undefined;
  return identifyFlattened(geminiNaming, id.slice(0, cut), servers, policy);
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
  resolveOptions: (options) => resolveProfileOptions("gemini", options, { warm: true }),
  executable: profileExecutable("Gemini CLI", GEMINI_EXECUTABLE_VARIABLE, GEMINI_TESTED, "gemini"),
  credentials: keyCredentials("Gemini CLI", KEY_VARIABLE, "gemini"),
  async plan({ launch, home, options }) {
    refuseMcpToolNames(
      "gemini",
      "Gemini CLI",
      "mcp_",
      "read_file, run_shell_command",
      options.builtinTools,
    );
    await writeSettings(
      join(home.home, ".gemini"),
      "settings.json",
      geminiSettings(options.builtinTools),
    );
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
    if (launch.provider) extra.GOOGLE_GEMINI_BASE_URL = launch.provider.baseUrl;
    return {
      args: ["--acp", "-m", launch.model, "--policy", policyFile],
      env: agentEnvironment(launch.env, home, { ...extra, ...providerKey(launch, KEY_VARIABLE) }),
    };
  },
  stop: () => "sigterm",
  naming: geminiNaming,
  identify: identifyGeminiCall,
};
