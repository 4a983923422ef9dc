import type { ToolNaming } from "@jest-m3/core/adapter-kit";
import type { CapturedServer, HarnessLaunch, ToolPolicy } from "@jest-m3/core/harness";
import { KEY_VARIABLES } from "./home.js";
import type { ResolvedClaudeCodeOptions } from "./options.js";
import type { JsonObject, McpServerStatus } from "./protocol.js";

/** Claude Code's own normalization of MCP server and tool names in tool names. */
export function normalizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The name Claude Code gives an MCP tool: `mcp__<server>__<tool>`. */
export function claudeToolName(server: string, tool: string): string {
  return `mcp__${normalizeName(server)}__${normalizeName(tool)}`;
}

/**
 * How Claude Code names an MCP tool for its model, as the adapter kit's collision rule
 * needs it: `mcp__<server>__<tool>`, every character other than letters, digits, `_` and
 * `-` replaced by `_` in both parts. Claude Code 2.1.332 (its bundled source: the tool's
 * name is `` `mcp__${Hn(server)}__${Hn(tool)}` `` with `Hn` replacing every character
 * outside `[a-zA-Z0-9_-]` by `_`) so `a.b:c` and `a_b:c` are both `mcp__a_b__c`, and server
 * `a` tool `b__c` is `mcp__a__b__c` like server `a__b` tool `c`.
 *
 * @example
 * ```ts
 * claudeCodeNaming.name("a.b", "c"); // "mcp__a_b__c"
 * ```
 */
export const claudeCodeNaming: ToolNaming = {
  agent: "Claude Code",
  rule: "mcp__<server>__<tool>, every character other than letters, digits, _ and - replaced by _",
  name: claudeToolName,
  prefix: (server) => `mcp__${normalizeName(server)}__`,
};

/** The permission rule that covers every tool of a server: `mcp__<server>`. */
export function serverRule(server: string): string {
  return `mcp__${normalizeName(server)}`;
}

/**
 * The tools Claude Code may run without asking (`--allowedTools`): the allow-list's tools,
 * a whole server (`mcp__<server>`) where every tool is allowed, and the built-in tools the
 * options ask for.
 */
export function allowedTools(
  policy: ToolPolicy,
  servers: readonly string[],
  options: ResolvedClaudeCodeOptions,
): string[] {
  const rules: string[] = [];
  for (const server of servers) {
    if (!policy.has(server)) continue;
    const allowed = policy.get(server);
    if (allowed === undefined) rules.push(serverRule(server));
    else for (const tool of allowed) rules.push(claudeToolName(server, tool));
  }
  if (Array.isArray(options.builtinTools)) rules.push(...options.builtinTools);
  return rules;
}

/**
 * The servers none of whose tools may be called: denied as a whole on the command line
 * (`--disallowedTools mcp__<server>`), so the model is never offered them.
 */
export function deniedServers(policy: ToolPolicy, servers: readonly string[]): string[] {
  return servers.filter((server) => {
    const allowed = policy.get(server);
    return !policy.has(server) || (allowed !== undefined && allowed.size === 0);
  });
}

/**
 * The deny rules that hide every listed tool outside the allow-list, from what
 * `mcp_status` says each server offers. Applied before the first turn
 * (`apply_flag_settings`), so the model is offered only allowed tools.
 */
export function denyRules(policy: ToolPolicy, statuses: readonly McpServerStatus[]): string[] {
  const rules: string[] = [];
  for (const status of statuses) {
    if (!policy.has(status.name)) continue;
    const allowed = policy.get(status.name);
    if (allowed === undefined || allowed.size === 0) continue; // all, or denied on the command line
    for (const tool of status.tools ?? []) {
      if (!allowed.has(tool.name)) rules.push(claudeToolName(status.name, tool.name));
    }
  }
  return rules;
}

/**
 * The command line of one Claude Code session. Every value is a constant, a name or an id
 * (never a credential or a server's environment): print mode with stream-json both ways,
 * no host settings, memory or MCP configuration (`--setting-sources ""`,
 * `--strict-mcp-config`), no built-in tools unless the options ask, permission prompts
 * routed to the adapter over stdio, no transcript on disk. A warm process (see
 * warm-pool.ts) gets no `--session-id`: it serves one conversation after another.
 */
export function claudeArgs(
  launch: HarnessLaunch,
  options: ResolvedClaudeCodeOptions,
  sessionId: string | undefined,
): string[] {
  const names = launch.servers.map((server) => server.name);
  const allowed = allowedTools(launch.toolPolicy, names, options);
  const denied = deniedServers(launch.toolPolicy, names).map(serverRule);
  const tools = options.builtinTools === "default" ? "default" : options.builtinTools.join(",");
  return [
    "--print",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--strict-mcp-config",
    "--setting-sources",
    "",
    "--tools",
    tools,
    "--permission-prompt-tool",
    "stdio",
    ...(allowed.length > 0 ? ["--allowedTools", allowed.join(",")] : []),
    ...(denied.length > 0 && !options.exposeDisallowedTools
      ? ["--disallowedTools", denied.join(",")]
      : []),
    "--model",
    launch.model,
    ...(sessionId !== undefined ? ["--session-id", sessionId] : []),
    "--no-session-persistence",
  ];
}

/**
 * One MCP server as Claude Code configures it: exactly the captured command or URL (so
 * every message crosses the wire capture). Claude Code's stdio configuration has no working
 * directory; the capture's relay starts the server in its own (`--cwd`). The server gets
 * its own environment, with Claude Code's credential variables blanked unless the server's
 * spec sets them (Claude Code gives stdio servers its whole environment).
 */
export function mcpServerConfig(
  server: CapturedServer,
  credentialNames: readonly string[],
): JsonObject {
  if (server.kind === "http") {
    return { type: "http", url: server.url, headers: { ...server.headers } };
  }
  const env: Record<string, string> = {};
  for (const name of [...KEY_VARIABLES, ...credentialNames]) env[name] = "";
  Object.assign(env, server.env);
  return { type: "stdio", command: server.command, args: [...server.args], env };
}

/**
 * The session's MCP servers, sent to Claude Code over stdin (`mcp_set_servers`): no
 * configuration file, so a server's environment is never written to disk.
 */
export function mcpServers(launch: HarnessLaunch): JsonObject {
  const credentialNames = [...launch.credentials];
  if (launch.provider?.envKey !== undefined) credentialNames.push(launch.provider.envKey);
  const servers: JsonObject = {};
  for (const server of launch.servers) {
    servers[server.name] = mcpServerConfig(server, credentialNames);
  }
  return servers;
}
