import {
  agentCredentials,
  launchable,
  openCold,
  openWarmLease,
  ownLogin,
  startFailure,
  startOrUndo,
  startupWait,
  type WarmAgentLease,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError, type HarnessLaunch } from "@jest-m3/core/harness";
import { AppServerClient } from "./app-server-client.js";
import { appServerArgs, threadStartParams } from "./config.js";
import { AppServerExited, CODEX_NAMES, CodexRpcError } from "./errors.js";
import { resolveCodexExecutable } from "./executable.js";
import { codexEnvironment, createHomes, findHostLogin, hostCodexHome } from "./home.js";
import { resolveCodexOptions, type ResolvedCodexOptions } from "./options.js";
import { credentialRules } from "./readiness.js";
import type { McpStartupStatus } from "./protocol.js";
import { CLOSE_GRACE_MS, CodexSession } from "./session.js";
import { warmAppServers } from "./warm-pool.js";

/**
 * Turns whatever stopped `open()` into a {@link HarnessStartError} in Codex's words, naming
 * the MCP server at fault when `thread/start` failed on one.
 */
function startError(
  error: unknown,
  client: AppServerClient,
  statuses: ReadonlyMap<string, McpStartupStatus>,
  servers: readonly string[],
  aborted: boolean,
): HarnessStartError {
  const stderrTail = client.agent.stderrTail();
  if (!aborted && error instanceof CodexRpcError && error.method === "thread/start") {
    const failed = servers.filter(
      (name) => statuses.get(name)?.status === "failed" || error.message.includes(`${name}:`),
    );
    const what =
      failed.length > 0
        ? `MCP server${failed.length > 1 ? "s" : ""} ${failed.map((name) => `"${name}"`).join(", ")} failed to start`
        : "Codex could not start the thread";
    return new HarnessStartError("codex", `${what}: ${error.message}`, {
      stderrTail,
      cause: error,
    });
  }
  return startFailure("codex", error, { names: CODEX_NAMES, stderrTail, aborted });
}

/**
 * Waits until Codex reports every server `ready` for the thread. A `failed` or `cancelled`
 * server, the deadline, the launch being torn down or the process exiting end the wait.
 */
function serversReady(
  client: AppServerClient,
  statuses: Map<string, McpStartupStatus>,
  servers: readonly string[],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  const failure = (name: string): string | undefined => {
    const status = statuses.get(name);
    if (status?.status !== "failed" && status?.status !== "cancelled") return undefined;
    const what = status.status === "failed" ? "failed to start" : "was cancelled while starting";
    return `MCP server "${name}" ${what}: ${status.error ?? "Codex gave no reason"}`;
  };
  const waiting = (): string =>
    servers
      .filter((name) => statuses.get(name)?.status !== "ready")
      .map((name) => `"${name}" (${statuses.get(name)?.status ?? "no status yet"})`)
      .join(", ");
  return startupWait({
    harness: "codex",
    names: CODEX_NAMES,
    agent: client.agent,
    signal,
    timeoutMs,
    changes: (listener) => client.onNotification(listener),
    check: () =>
      servers.map(failure).find((words) => words !== undefined) ??
      servers.every((name) => statuses.get(name)?.status === "ready"),
    waiting: () => `MCP servers not ready within ${timeoutMs} ms: ${waiting()}`,
    exited: (exit) =>
      new AppServerExited("while its MCP servers were starting", exit, client.agent.stderrTail()),
  });
}

/**
 * `thread/start` on `client` with the session's configuration (its id goes into `thread`),
 * then every MCP server ready: the session. Startup statuses of every thread arrive on one
 * stream: a shared app-server's (`lease`) are kept by thread; on the session's own, before
 * its first turn, they may name the thread or not.
 */
async function openThread(
  client: AppServerClient,
  launch: HarnessLaunch,
  options: ResolvedCodexOptions,
  thread: { id?: string },
  lease?: WarmAgentLease<AppServerClient>,
): Promise<CodexSession> {
  const byThread = new Map<string, Map<string, McpStartupStatus>>();
  const statusesOf = (id = ""): Map<string, McpStartupStatus> => {
    const key = lease ? id : "";
    if (!byThread.has(key)) byThread.set(key, new Map());
    return byThread.get(key)!;
  };
  const stopStatuses = client.onNotification((notification) => {
    if (notification.method !== "mcpServer/startupStatus/updated") return;
    const status = notification.params as unknown as McpStartupStatus;
    statusesOf(status.threadId ?? "").set(status.name, status);
  });
  const names = launch.servers.map((server) => server.name);
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  try {
    const started = await client.call("thread/start", threadStartParams(launch, options), wait);
    thread.id = started.thread?.id;
    if (typeof thread.id !== "string" || thread.id === "") {
      const answer = JSON.stringify(started).slice(0, 300);
      throw new HarnessStartError("codex", `thread/start answered without a thread id: ${answer}`);
    }
    const statuses = statusesOf(thread.id);
    await serversReady(client, statuses, names, options.startupTimeoutMs, launch.signal);
    return new CodexSession(client, launch, thread.id, lease);
  } catch (error) {
    throw startError(error, client, statusesOf(thread.id), names, launch.signal.aborted);
  } finally {
    stopStatuses();
  }
}

/**
 * Opens a Codex session: one `codex app-server` in a fresh CODEX_HOME and HOME, one
 * ephemeral thread in the launch's workspace, every MCP server ready before it returns.
 *
 * @throws {@link HarnessStartError} with Codex's words (and the MCP server's name when a
 * server failed to start) and the app-server's stderr tail.
 */
export async function openCodexSession(launch: HarnessLaunch): Promise<CodexSession> {
  const options = resolveCodexOptions(launch.selection.options);
  const login = findHostLogin(hostCodexHome(launch.config));
  const credentials = agentCredentials(launch.provider, launch.credentials, credentialRules(login));
  const found = resolveCodexExecutable(launch.selection, launch.config);
  const executable = launchable("codex", found, credentials).path;
  const authFile = ownLogin(launch, login, (own) => `the Codex login of ${own.authFile}`)?.authFile;
  if (options.warm) return openWarmSession(launch, options, executable, authFile);
  return openCold({
    harness: "codex",
    names: CODEX_NAMES,
    launch,
    prefix: "m3-codex-",
    plan: async (root) => {
      const env = codexEnvironment(launch.env, await createHomes(root, authFile));
      const spawn = { label: "codex app-server", command: executable, cwd: launch.workspace };
      return { process: { ...spawn, args: appServerArgs(options), env } };
    },
    client: (child) => new AppServerClient(child),
    start: async (client) => {
      await client.initialize({ timeoutMs: options.startupTimeoutMs, signal: launch.signal });
      return openThread(client, launch, options, {});
    },
  });
}

/**
 * Opens a session on a warm app-server (`options: { warm: true }`): its own ephemeral
 * thread, with its own MCP servers, provider and workspace, in an app-server shared only
 * with sessions of the same executable, environment and login (see warm-pool.ts).
 */
async function openWarmSession(
  launch: HarnessLaunch,
  options: ResolvedCodexOptions,
  executable: string,
  authFile: string | undefined,
): Promise<CodexSession> {
  const lease = await openWarmLease({
    harness: "codex",
    names: CODEX_NAMES,
    signal: launch.signal,
    prefix: "m3-codex-warm-",
    plan: async (root) => {
      const env = codexEnvironment(launch.env, await createHomes(root, authFile));
      const args = appServerArgs(options);
      return { command: executable, args, env, root, timeoutMs: options.startupTimeoutMs };
    },
    acquire: (start) => warmAppServers.acquire(start),
  });
  const thread: { id?: string } = {};
  // Its thread let go of (unsubscribed), its MCP servers stopped; the app-server still serves
  // the sessions it has. Another session's lines may be in the shared stderr: none of it
  // goes into the error.
  const unsubscribe = async (): Promise<boolean> => {
    if (thread.id === undefined) return true;
    const threadId = thread.id;
    await lease.client
      .call("thread/unsubscribe", { threadId }, { timeoutMs: 1000 })
      .catch(() => undefined);
    return true;
  };
  return startOrUndo("codex", () => openThread(lease.client, launch, options, thread, lease), {
    names: CODEX_NAMES,
    signal: launch.signal,
    stderrTail: () => "",
    undo: () => lease.leaveShared(launch.servers, unsubscribe, CLOSE_GRACE_MS),
    shared: true,
  });
}
