import {
  launchable,
  openWarmLease,
  startFailure,
  startupWait,
  tornDown,
  withoutSharedStderr,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError, type HarnessLaunch } from "@jest-m3/core/harness";
import { AppServerClient } from "./app-server-client.js";
import { appServerArgs, threadStartParams } from "./config.js";
import { AppServerExited, CODEX_NAMES, CodexRpcError } from "./errors.js";
import { resolveCodexExecutable } from "./executable.js";
import {
  codexEnvironment,
  copyHostLogin,
  createHomes,
  credentialsCapability,
  findHostLogin,
  hostCodexHome,
} from "./home.js";
import { resolveCodexOptions, type ResolvedCodexOptions } from "./options.js";
import type { McpStartupStatus } from "./protocol.js";
import { CLOSE_GRACE_MS, CodexSession } from "./session.js";
import { acquireWarm } from "./warm-pool.js";

const TORN_DOWN = tornDown(CODEX_NAMES);

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

/** Records the startup statuses of every thread on a shared app-server, by thread. */
function watchStatuses(
  client: AppServerClient,
  byThread: Map<string, Map<string, McpStartupStatus>>,
): () => void {
  return client.onNotification((notification) => {
    if (notification.method !== "mcpServer/startupStatus/updated") return;
    const status = notification.params as unknown as McpStartupStatus & { threadId?: string };
    const thread = status.threadId ?? "";
    if (!byThread.has(thread)) byThread.set(thread, new Map());
    byThread.get(thread)!.set(status.name, status);
  });
}

/** `thread/start` with the session's configuration: the thread's id. */
async function startThread(
  client: AppServerClient,
  launch: HarnessLaunch,
  options: ResolvedCodexOptions,
): Promise<string> {
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  const started = await client.request("thread/start", threadStartParams(launch, options), wait);
  const threadId = started.thread?.id;
  if (typeof threadId !== "string" || threadId === "") {
    throw new HarnessStartError(
      "codex",
      `thread/start answered without a thread id: ${JSON.stringify(started).slice(0, 300)}`,
    );
  }
  return threadId;
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
  const credentials = credentialsCapability(launch.provider, launch.credentials, login);
  const found = resolveCodexExecutable(launch.selection, launch.config);
  const executable = launchable("codex", found, credentials).path;
  const ownLogin = !launch.provider && launch.credentials.length === 0 && login.usable;
  if (ownLogin)
    launch.record({ kind: "harness", detail: `using the Codex login of ${login.authFile}` });
  if (options.warm) {
    return openWarmSession(launch, options, executable, ownLogin ? login.authFile : undefined);
  }
  const homes = await createHomes(await launch.tempDir("m3-codex-"));
  if (ownLogin) await copyHostLogin(login.authFile, homes);
  if (launch.signal.aborted) throw new HarnessStartError("codex", TORN_DOWN);
  const child = launch.spawn({
    label: "codex app-server",
    command: executable,
    args: appServerArgs(options),
    env: codexEnvironment(launch.env, homes),
    cwd: launch.workspace,
  });
  const client = new AppServerClient(child);
  // Before the first turn only this thread exists: statuses may name it or not.
  const statuses = new Map<string, McpStartupStatus>();
  const stopStatuses = client.onNotification((notification) => {
    if (notification.method === "mcpServer/startupStatus/updated") {
      const status = notification.params as unknown as McpStartupStatus;
      statuses.set(status.name, status);
    }
  });
  const names = launch.servers.map((server) => server.name);
  try {
    await child.spawned;
    await client.initialize({ timeoutMs: options.startupTimeoutMs, signal: launch.signal });
    const threadId = await startThread(client, launch, options);
    await serversReady(client, statuses, names, options.startupTimeoutMs, launch.signal);
    return new CodexSession(client, launch, threadId);
  } catch (error) {
    const failure = startError(error, client, statuses, names, launch.signal.aborted);
    await client.close(300);
    throw failure;
  } finally {
    stopStatuses();
  }
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
      const homes = await createHomes(root);
      if (authFile !== undefined) await copyHostLogin(authFile, homes);
      const env = codexEnvironment(launch.env, homes);
      const args = appServerArgs(options);
      return { command: executable, args, env, root, timeoutMs: options.startupTimeoutMs };
    },
    acquire: acquireWarm,
  });
  const client = lease.client;
  // Startup statuses of every thread arrive on the shared stream; keep this thread's only.
  const byThread = new Map<string, Map<string, McpStartupStatus>>();
  const stopStatuses = watchStatuses(client, byThread);
  const names = launch.servers.map((server) => server.name);
  let threadId: string | undefined;
  try {
    threadId = await startThread(client, launch, options);
    if (!byThread.has(threadId)) byThread.set(threadId, new Map());
    const statuses = byThread.get(threadId)!;
    await serversReady(client, statuses, names, options.startupTimeoutMs, launch.signal);
    return new CodexSession(client, launch, threadId, lease);
  } catch (error) {
    const statuses = byThread.get(threadId ?? "") ?? new Map<string, McpStartupStatus>();
    const failure = startError(error, client, statuses, names, launch.signal.aborted);
    // Its thread let go of (unsubscribed), its MCP servers stopped; the app-server still
    // serves the sessions it has.
    const unsubscribe = async (): Promise<boolean> => {
      if (threadId === undefined) return true;
      const wait = { timeoutMs: 1000 };
      await client.request("thread/unsubscribe", { threadId }, wait).catch(() => undefined);
      return true;
    };
    await lease.leaveShared(launch.servers, unsubscribe, CLOSE_GRACE_MS);
    // Another session's lines may be in the shared stderr: none of it goes into this error.
    throw withoutSharedStderr("codex", failure);
  } finally {
    stopStatuses();
  }
}
