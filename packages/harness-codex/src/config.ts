import {
  type CapturedServer,
  type HarnessLaunch,
  type ModelProvider,
  type ToolPolicy,
} from "@jest-m3/core/harness";
import type { ResolvedCodexOptions } from "./options.js";
import type { JsonObject, ThreadStartParams } from "./protocol.js";

/**
 * The app-server's command line. Every value is a constant (nothing of the user's, no
 * credential): startup stays off the network (no update check, no plugins or apps, no
 * analytics) and the built-in tools a test does not need are off, so the model sees the MCP
 * servers' tools and little else.
 */
export const APP_SERVER_ARGS: readonly string[] = [
  "app-server",
  ...[
    "check_for_update_on_startup=false",
    "features.plugins=false",
    "features.apps=false",
    "analytics.enabled=false",
    'web_search="disabled"',
  ].flatMap((setting) => ["-c", setting]),
  // The shell snapshot writes the app-server's environment (credentials included) into
  // CODEX_HOME/shell_snapshots; with the shell tool off it has no use.
  ...["shell_tool", "multi_agent", "goals", "shell_snapshot"].flatMap((off) => ["--disable", off]),
];

/**
 * The app-server's command line for `options`: {@link APP_SERVER_ARGS}, with Codex's shell
 * tool (and so `apply_patch`) left on when `builtinTools` names one of them. The shell
 * snapshot stays off either way (it would write the environment into CODEX_HOME).
 */
export function appServerArgs(options: Pick<ResolvedCodexOptions, "builtinTools">): string[] {
  const args = [...APP_SERVER_ARGS];
  if (options.builtinTools.length > 0) args.splice(args.indexOf("shell_tool") - 1, 2);
  return args;
}

/**
 * A model provider as Codex configures one. Only the *name* of the key variable is
 * written (`env_key`); its value stays in the app-server's environment. Retries are off so a
 * scripted fault fails the turn once, as the test wrote it.
 */
export function providerConfig(provider: ModelProvider): JsonObject {
  return {
    name: provider.name,
    base_url: provider.baseUrl,
    wire_api: provider.wireApi,
    request_max_retries: 0,
    stream_max_retries: 0,
    ...(provider.envKey !== undefined ? { env_key: provider.envKey } : {}),
  };
}

/**
 * The tools of `server` Codex may offer the model, or undefined for all of them. A server
 * missing from the policy gets none.
 */
export function enabledTools(policy: ToolPolicy, server: string): string[] | undefined {
  if (!policy.has(server)) return [];
  const allowed = policy.get(server);
  return allowed === undefined ? undefined : [...allowed];
}

/**
 * One MCP server as Codex configures it: exactly the captured command or URL (so every
 * message crosses the wire capture), required to start, with the allow-list as
 * `enabled_tools` unless `exposeDisallowedTools` is set.
 */
export function mcpServerConfig(
  server: CapturedServer,
  policy: ToolPolicy,
  options: ResolvedCodexOptions,
): JsonObject {
  const transport: JsonObject =
    server.kind === "stdio"
      ? {
          command: server.command,
          args: [...server.args],
          env: { ...server.env },
          cwd: server.cwd,
        }
      : { url: server.url, http_headers: { ...server.headers } };
  const tools = options.exposeDisallowedTools ? undefined : enabledTools(policy, server.name);
  return {
    ...transport,
    required: true,
    startup_timeout_sec: Math.ceil(options.startupTimeoutMs / 1000),
    tool_timeout_sec: Math.ceil(options.toolTimeoutMs / 1000),
    ...(tools !== undefined ? { enabled_tools: tools } : {}),
  };
}

/**
 * The per-thread configuration: the MCP servers and the model provider. It travels in
 * `thread/start` over the app-server's stdin, so server names need no TOML quoting and
 * values (a server's `env`, an HTTP header) are never written to a file.
 */
export function threadConfig(launch: HarnessLaunch, options: ResolvedCodexOptions): JsonObject {
  const servers: JsonObject = {};
  for (const server of launch.servers) {
    servers[server.name] = mcpServerConfig(server, launch.toolPolicy, options);
  }
  return {
    mcp_servers: servers,
    ...(launch.provider
      ? { model_providers: { [launch.provider.name]: providerConfig(launch.provider) } }
      : {}),
  };
}

/**
 * `thread/start` for a session: the workspace as cwd, MCP approvals routed to the adapter
 * (`on-request`), an ephemeral thread (no rollout file).
 */
export function threadStartParams(
  launch: HarnessLaunch,
  options: ResolvedCodexOptions,
): ThreadStartParams {
  return {
    cwd: launch.workspace,
    approvalPolicy: "on-request",
    sandbox: options.sandbox,
    model: launch.model,
    ...(launch.provider ? { modelProvider: launch.provider.name } : {}),
    config: threadConfig(launch, options),
    ephemeral: true,
  };
}
