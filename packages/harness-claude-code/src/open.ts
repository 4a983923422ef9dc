import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  assertDistinctToolNames,
  errorMessage,
  launchable,
  openCold,
  openWarmLease,
  ownLogin,
  polledChanges,
  startOrUndo,
  startupWait,
} from "@jest-m3/core/adapter-kit";
import type { HarnessLaunch } from "@jest-m3/core/harness";
import { claudeArgs, claudeCodeNaming, denyRules, mcpServers, normalizeName } from "./config.js";
import { resolveClaudeExecutable } from "./executable.js";
import {
  claudeEnvironment,
  createHomes,
  credentialsCapability,
  findHostLogin,
  type ClaudeHomes,
  type HostLogin,
} from "./home.js";
import { CLAUDE_NAMES, HARNESS_NAME, InvalidClaudeCodeOptions } from "./errors.js";
import { resolveClaudeCodeOptions, type ResolvedClaudeCodeOptions } from "./options.js";
import type { McpServerStatus } from "./protocol.js";
import { ClaudeCodeSession } from "./session.js";
import { StreamJsonClient } from "./stream-json-client.js";
import { acquireWarmClaude } from "./warm-pool.js";

/** How often `mcp_status` is asked while a server is still pending. */
const STATUS_POLL_MS = 100;

/**
 * The files of Claude Code's MCP logs under `homes` (its `mcp-logs-<server>` folders), of
 * one server or of all, in order: a warm session skips those of the sessions before it.
 */
export function mcpLogFiles(homes: ClaudeHomes, server?: string): string[] {
  const cache = join(homes.home, ".cache", "claude-cli-nodejs");
  const wanted = server === undefined ? undefined : `mcp-logs-${normalizeName(server)}`;
  const list = (dir: string): string[] => {
    try {
      return readdirSync(dir).sort();
    } catch {
      return []; // No logs (yet).
    }
  };
  const files: string[] = [];
  for (const project of list(cache)) {
    for (const dir of list(join(cache, project))) {
      if (wanted !== undefined ? dir !== wanted : !dir.startsWith("mcp-logs-")) continue;
      files.push(...list(join(cache, project, dir)).map((file) => join(cache, project, dir, file)));
    }
  }
  return files;
}

/**
 * Why a server did not connect, with what Claude Code's own MCP log says it wrote to stderr
 * before it failed (its `mcp-logs-<server>` files under the isolated HOME). Files in `skip`
 * (a warm process's logs of earlier sessions) are not read.
 */
function failure(
  status: McpServerStatus,
  homes: ClaudeHomes,
  skip: ReadonlySet<string> = new Set(),
): string {
  const lines: string[] = [];
  for (const file of mcpLogFiles(homes, status.name)) {
    if (skip.has(file)) continue;
    let log = "";
    try {
      log = readFileSync(file, "utf8");
    } catch {
      continue; // Gone meanwhile.
    }
    for (const line of log.split("\n")) {
      try {
        const entry = JSON.parse(line) as { error?: unknown; debug?: unknown };
        const text = typeof entry.error === "string" ? entry.error : "";
        if (text.startsWith("Server stderr:")) lines.push(text.slice(14).trim());
      } catch {
        // Not a JSON line.
      }
    }
  }
  const stderr = [...new Set(lines)].join("\n").slice(-4000);
  const what = status.status === "failed" ? "failed to start" : `is ${status.status}`;
  const section = stderr ? `\n--- ${status.name} stderr ---\n${stderr}` : "";
  return `MCP server "${status.name}" ${what}: ${status.error ?? "Claude Code gave no reason"}${section}`;
}

/**
 * Asks `mcp_status` until no server is pending, then fails naming every server that did
 * not connect (with its stderr, from Claude Code's MCP log).
 */
async function serversConnected(
  client: StreamJsonClient,
  names: readonly string[],
  homes: ClaudeHomes,
  options: ResolvedClaudeCodeOptions,
  signal: AbortSignal,
  skipLogs?: ReadonlySet<string>,
): Promise<McpServerStatus[]> {
  const timeoutMs = options.startupTimeoutMs;
  let mine: McpServerStatus[] = [];
  let problem: unknown;
  const ask = async (): Promise<void> => {
    const statuses = await client.mcpStatus({ timeoutMs, signal });
    mine = statuses.filter((status) => names.includes(status.name));
  };
  const pending = (): string[] =>
    names.filter(
      (name) => !mine.some((status) => status.name === name && status.status !== "pending"),
    );
  await startupWait({
    harness: HARNESS_NAME,
    names: CLAUDE_NAMES,
    agent: client.agent,
    signal,
    timeoutMs,
    changes: polledChanges(ask, STATUS_POLL_MS, (error) => (problem = error)),
    check: () => {
      if (problem !== undefined) return errorMessage(problem);
      if (pending().length > 0) return false;
      const failed = mine.filter((status) => status.status !== "connected");
      return (
        failed.length === 0 || failed.map((status) => failure(status, homes, skipLogs)).join("\n")
      );
    },
    waiting: () =>
      `MCP servers not connected within ${timeoutMs} ms: ${pending()
        .map((name) => `"${name}"`)
        .join(", ")}`,
  });
  return mine;
}

/**
 * Opens a Claude Code session: on a warm process of this worker (see warm-pool.ts) unless
 * the session needs one of its own (`warm: false`, `builtinTools`, a workspace), else on
 * one `claude --print` process in stream-json mode, in a fresh HOME and CLAUDE_CONFIG_DIR;
 * either way with the captured MCP servers given over stdin, every server connected and
 * the tools outside the allow-list hidden before it returns.
 *
 * @throws {@link HarnessStartError} with Claude Code's words (and the MCP server's name and
 * stderr when a server failed to start) and Claude Code's stderr tail.
 * @throws `ToolNameCollision` before anything starts when Claude Code would give two of the
 * session's MCP tools one name.
 */
export async function openClaudeCodeSession(launch: HarnessLaunch): Promise<ClaudeCodeSession> {
  const options = resolveClaudeCodeOptions(launch.selection.options);
  const login = findHostLogin(launch.config);
  const credentials = credentialsCapability(launch.provider, launch.credentials, login);
  const found = resolveClaudeExecutable(launch.selection, launch.config);
  const executable = launchable(HARNESS_NAME, found, credentials).path;
  assertDistinctToolNames(
    claudeCodeNaming,
    launch.servers.map((server) => server.name),
    launch.toolPolicy,
    options.exposeDisallowedTools,
  );
  // Left out, `warm` adapts: a session with a workspace needs a process started in it.
  const warm = options.warm && !(options.warmByDefault && launch.workspaceKind !== undefined);
  if (warm && launch.workspaceKind !== undefined) {
    throw new InvalidClaudeCodeOptions(
      "warm",
      `cannot serve a session with a workspace (${launch.workspaceKind}): a warm Claude Code process keeps the working directory it was started in, so the agent would not work in the session's workspace. Leave warm out of the selections of workspace sessions (they are then cold, the workspace the agent's cwd), or the workspace out of warm ones.`,
    );
  }
  const own = ownLogin(launch, login, (use) => `the Claude Code login of ${use.credentialsFile}`);
  if (warm) return openWarmSession(launch, options, executable, own);
  const sessionId = randomUUID();
  return openCold({
    harness: HARNESS_NAME,
    names: CLAUDE_NAMES,
    launch,
    prefix: "m3-claude-",
    plan: async (root) => {
      const homes = await createHomes(root, own);
      const env = claudeEnvironment(launch.env, homes, launch.provider, options);
      const args = claudeArgs(launch, options, sessionId);
      return {
        process: { label: "claude", command: executable, args, env, cwd: launch.workspace },
        homes,
      };
    },
    client: (child) => new StreamJsonClient(child),
    start: async (client, { homes }) => {
      await configureServers(client, launch, homes, options);
      return new ClaudeCodeSession(client, launch, sessionId, options);
    },
  });
}

/**
 * Gives Claude Code the session's MCP servers (`mcp_set_servers`), waits until every one
 * is connected, and hides the tools outside the allow-list (`apply_flag_settings`).
 */
async function configureServers(
  client: StreamJsonClient,
  launch: HarnessLaunch,
  homes: ClaudeHomes,
  options: ResolvedClaudeCodeOptions,
  skipLogs?: ReadonlySet<string>,
): Promise<void> {
  const names = launch.servers.map((server) => server.name);
  if (names.length === 0) return;
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  await client.control({ subtype: "mcp_set_servers", servers: mcpServers(launch) }, wait);
  const statuses = await serversConnected(client, names, homes, options, launch.signal, skipLogs);
  const deny = options.exposeDisallowedTools ? [] : denyRules(launch.toolPolicy, statuses);
  if (deny.length > 0) {
    await client.control(
      { subtype: "apply_flag_settings", settings: { permissions: { deny } } },
      wait,
    );
    launch.record({
      kind: "harness",
      detail: `hid ${deny.length} tool(s) outside the allow-list from the model: ${deny.join(", ")}`,
    });
  }
}

/**
 * Opens a session on a warm Claude Code process (the default): one started with exactly
 * this session's command line, environment and home files, idle, and reset by the session
 * before (see warm-pool.ts), or a new one. The session then gives it its own
 * MCP servers and deny rules, as a cold session does.
 */
async function openWarmSession(
  launch: HarnessLaunch,
  options: ResolvedClaudeCodeOptions,
  executable: string,
  login: Extract<HostLogin, { usable: true }> | undefined,
): Promise<ClaudeCodeSession> {
  const lease = await openWarmLease({
    harness: HARNESS_NAME,
    names: CLAUDE_NAMES,
    signal: launch.signal,
    prefix: "m3-claude-warm-",
    plan: async (root) => {
      const homes = await createHomes(root, login);
      const env = claudeEnvironment(launch.env, homes, launch.provider, options);
      return { command: executable, args: claudeArgs(launch, options, undefined), env, root };
    },
    acquire: acquireWarmClaude,
  });
  const client = lease.client;
  // Only what Claude Code writes for this session goes into its errors.
  client.agent.markStderr();
  launch.record({
    kind: "harness",
    detail: `${lease.started ? "started a warm" : "reused the warm"} Claude Code (pid ${client.process.pid ?? "unknown"})`,
  });
  const start = async (): Promise<ClaudeCodeSession> => {
    await configureServers(client, launch, lease.homes, options, new Set(mcpLogFiles(lease.homes)));
    return new ClaudeCodeSession(client, launch, "", options, lease);
  };
  return startOrUndo(HARNESS_NAME, start, {
    names: CLAUDE_NAMES,
    signal: launch.signal,
    stderrTail: () => client.agent.stderrTail(),
    undo: () => lease.release(false),
  });
}
