import {
  HarnessStartError,
  isToolAllowed,
  stopSessionServers,
  type AdapterTurn,
  type AdapterTurnRequest,
  type HarnessHealth,
  type HarnessLaunch,
  type HarnessSession,
  stderrSection,
} from "@jest-m3/core/harness";
import { AppServerClient } from "./app-server-client.js";
import { APP_SERVER_ARGS, threadStartParams } from "./config.js";
import { AppServerExited, AppServerTimeout, CodexRpcError } from "./errors.js";
import { codexEnvironment, copyHostLogin, createHomes, findHostLogin } from "./home.js";
import { resolveCodexOptions } from "./options.js";
import type {
  ElicitationRequestParams,
  ElicitationResponse,
  Json,
  McpStartupStatus,
  ServerNotification,
  ServerRequest,
} from "./protocol.js";
import { CLIENT_INFO, credentialsCapability, launchFacts } from "./readiness.js";
import { TurnCollector } from "./turn.js";
import { acquireWarm, type WarmLease } from "./warm-pool.js";

/** How long an interrupted turn waits for Codex to confirm before it ends anyway. */
const INTERRUPT_GRACE_MS = 1500;
/** How long `close()` waits for Codex to exit after its stdin closed, before signals. */
const CLOSE_GRACE_MS = 1500;
const TORN_DOWN = "the session was torn down while Codex was starting";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTail(text: string, tail: string): string {
  return `${text}${stderrSection(tail, "codex")}`;
}

/**
 * Turns whatever stopped `open()` into a {@link HarnessStartError} in Codex's words, naming
 * the MCP server at fault when there is one.
 */
function startError(
  error: unknown,
  client: AppServerClient,
  statuses: ReadonlyMap<string, McpStartupStatus>,
  servers: readonly string[],
  aborted: boolean,
): HarnessStartError {
  if (error instanceof HarnessStartError) return error;
  const stderrTail = client.stderrTail();
  if (aborted) {
    return new HarnessStartError("codex", TORN_DOWN, { stderrTail, cause: error });
  }
  if (error instanceof CodexRpcError && error.method === "thread/start") {
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
  if (error instanceof AppServerExited) {
    return new HarnessStartError(
      "codex",
      `codex app-server exited (${error.exit}) while starting`,
      {
        stderrTail,
        cause: error,
      },
    );
  }
  if (error instanceof AppServerTimeout) {
    return new HarnessStartError("codex", error.message, { stderrTail, cause: error });
  }
  return new HarnessStartError("codex", message(error), { stderrTail, cause: error });
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
  return new Promise<void>((resolve, reject) => {
    const stops: (() => void)[] = [];
    const settle = (error?: unknown): void => {
      for (const stop of stops) stop();
      if (error === undefined) resolve();
      else reject(error);
    };
    const check = (): void => {
      for (const name of servers) {
        const status = statuses.get(name);
        if (status?.status === "failed" || status?.status === "cancelled") {
          settle(
            new HarnessStartError(
              "codex",
              `MCP server "${name}" ${status.status === "failed" ? "failed to start" : "was cancelled while starting"}: ${status.error ?? "Codex gave no reason"}`,
              { stderrTail: client.stderrTail() },
            ),
          );
          return;
        }
      }
      if (servers.every((name) => statuses.get(name)?.status === "ready")) settle();
    };
    const timer = setTimeout(() => {
      const waiting = servers
        .filter((name) => statuses.get(name)?.status !== "ready")
        .map((name) => `"${name}" (${statuses.get(name)?.status ?? "no status yet"})`);
      settle(
        new HarnessStartError(
          "codex",
          `MCP servers not ready within ${timeoutMs} ms: ${waiting.join(", ")}`,
          { stderrTail: client.stderrTail() },
        ),
      );
    }, timeoutMs);
    stops.push(() => clearTimeout(timer));
    const onAbort = (): void => settle(new HarnessStartError("codex", TORN_DOWN));
    signal.addEventListener("abort", onAbort, { once: true });
    stops.push(() => signal.removeEventListener("abort", onAbort));
    stops.push(client.onNotification(() => check()));
    stops.push(
      client.onExit((exit) =>
        settle(
          new AppServerExited("while its MCP servers were starting", exit, client.stderrTail()),
        ),
      ),
    );
    if (signal.aborted) onAbort();
    else check();
  });
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
  const facts = launchFacts(launch.selection, launch.config);
  if (!facts.executable.found) throw new HarnessStartError("codex", facts.executable.reason);
  const credentials = credentialsCapability(
    launch.provider,
    launch.credentials,
    findHostLogin(facts.hostHome),
  );
  if (credentials.status !== "ready") {
    throw new HarnessStartError("codex", credentials.reason ?? "no credentials");
  }
  if (options.warm) return openWarmSession(launch, options, facts.executable.path, facts.hostHome);
  const homes = await createHomes(await launch.tempDir("m3-codex-"));
  if (!launch.provider && launch.credentials.length === 0) {
    const login = findHostLogin(facts.hostHome);
    if (login.usable) {
      await copyHostLogin(login.authFile, homes);
      launch.record({ kind: "harness", detail: `using the Codex login of ${login.authFile}` });
    }
  }
  if (launch.signal.aborted) throw new HarnessStartError("codex", TORN_DOWN);
  const child = launch.spawn({
    label: "codex app-server",
    command: facts.executable.path,
    args: [...APP_SERVER_ARGS],
    env: codexEnvironment(launch.env, homes),
    cwd: launch.workspace,
  });
  const client = new AppServerClient(child);
  const statuses = new Map<string, McpStartupStatus>();
  const stopStatuses = client.onNotification((notification) => {
    if (notification.method === "mcpServer/startupStatus/updated") {
      const status = notification.params as unknown as McpStartupStatus;
      statuses.set(status.name, status);
    }
  });
  const names = launch.servers.map((server) => server.name);
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  try {
    await child.spawned;
    await client.request(
      "initialize",
      { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true } },
      wait,
    );
    client.notify("initialized");
    const started = await client.request("thread/start", threadStartParams(launch, options), wait);
    const threadId = started.thread?.id;
    if (typeof threadId !== "string" || threadId === "") {
      throw new HarnessStartError(
        "codex",
        `thread/start answered without a thread id: ${JSON.stringify(started).slice(0, 300)}`,
      );
    }
    // Startup statuses may name the thread or not; before the first turn only this one exists.
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
  options: ReturnType<typeof resolveCodexOptions>,
  executable: string,
  hostHome: string,
): Promise<CodexSession> {
  let authFile: string | undefined;
  if (!launch.provider && launch.credentials.length === 0) {
    const login = findHostLogin(hostHome);
    if (login.usable) {
      authFile = login.authFile;
      launch.record({ kind: "harness", detail: `using the Codex login of ${login.authFile}` });
    }
  }
  if (launch.signal.aborted) throw new HarnessStartError("codex", TORN_DOWN);
  let lease: WarmLease;
  try {
    lease = await acquireWarm({ executable, env: launch.env, authFile }, options.startupTimeoutMs);
  } catch (error) {
    throw new HarnessStartError(
      "codex",
      `the warm codex app-server did not start: ${message(error)}`,
      {
        cause: error,
      },
    );
  }
  const client = lease.client;
  // Startup statuses of every thread arrive on the shared stream; keep this thread's only.
  const byThread = new Map<string, Map<string, McpStartupStatus>>();
  const stopStatuses = client.onNotification((notification) => {
    if (notification.method !== "mcpServer/startupStatus/updated") return;
    const status = notification.params as unknown as McpStartupStatus & { threadId?: string };
    const thread = status.threadId ?? "";
    if (!byThread.has(thread)) byThread.set(thread, new Map());
    byThread.get(thread)!.set(status.name, status);
  });
  const names = launch.servers.map((server) => server.name);
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  let threadId: string | undefined;
  try {
    const started = await client.request("thread/start", threadStartParams(launch, options), wait);
    threadId = started.thread?.id;
    if (typeof threadId !== "string" || threadId === "") {
      throw new HarnessStartError(
        "codex",
        `thread/start answered without a thread id: ${JSON.stringify(started).slice(0, 300)}`,
      );
    }
    if (!byThread.has(threadId)) byThread.set(threadId, new Map());
    await serversReady(
      client,
      byThread.get(threadId)!,
      names,
      options.startupTimeoutMs,
      launch.signal,
    );
    return new CodexSession(client, launch, threadId, lease);
  } catch (error) {
    const failure = startError(
      error,
      client,
      byThread.get(threadId ?? "") ?? new Map(),
      names,
      launch.signal.aborted,
    );
    if (threadId !== undefined) {
      await client
        .request("thread/unsubscribe", { threadId }, { timeoutMs: 1000 })
        .catch(() => undefined);
    }
    await stopSessionServers(client.process.pid, launch.servers, CLOSE_GRACE_MS);
    lease.release();
    // Another session's lines may be in the shared stderr: none of it goes into this error.
    throw new HarnessStartError("codex", failure.message.split("\n")[0] ?? failure.message, {
      cause: failure,
    });
  } finally {
    stopStatuses();
  }
}

/**
 * One Codex thread in one `codex app-server`: every `send()` is a `turn/start` on the same
 * thread. Tool approvals are answered from the session's allow-list and recorded.
 */
export class CodexSession implements HarnessSession {
  private turn: TurnCollector | undefined;
  private closing: Promise<void> | undefined;
  private readonly warnings = new Set<string>();
  private readonly stops: (() => void)[] = [];

  /** @internal Made by {@link openCodexSession}. */
  constructor(
    private readonly client: AppServerClient,
    private readonly launch: HarnessLaunch,
    /** The Codex thread id. */
    readonly id: string,
    /** Set when the app-server is a warm one shared with other sessions' threads. */
    private readonly lease?: WarmLease,
  ) {
    this.stops.push(
      client.onNotification((notification) => {
        // On a shared app-server, another thread's notifications are not this session's.
        const params = notification.params as { threadId?: unknown } | null;
        const thread = typeof params?.threadId === "string" ? params.threadId : undefined;
        if (lease && thread !== this.id) return;
        this.onNotification(notification);
      }),
      client.handleServerRequests(
        (request) => this.onServerRequest(request),
        lease ? id : undefined,
      ),
      client.onExit((exit) => {
        this.turn?.finish(
          "failed",
          withTail(`codex app-server exited (${exit}) during the turn`, this.stderrTail()),
        );
      }),
    );
  }

  /** The app-server's stderr tail; none for a shared one (other sessions' lines are in it). */
  private stderrTail(): string {
    return this.lease ? "" : this.client.stderrTail();
  }

  /** The app-server's process id (for diagnosis and fault tests). */
  get pid(): number | undefined {
    return this.client.process.pid;
  }

  /**
   * Sends one user turn (`turn/start` on the thread) and resolves when Codex completes it,
   * when the turn's signal aborts (after `turn/interrupt`, with outcome `interrupted`), or
   * when the app-server dies (outcome `failed`, with its stderr tail).
   */
  async send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    const exit = this.client.exitDescription;
    if (exit !== undefined || this.closing) {
      const why =
        exit !== undefined ? `codex app-server is not running (${exit})` : "the session is closed";
      return {
        outcome: "failed",
        response: null,
        error: withTail(why, this.stderrTail()),
        toolCalls: [],
        events: [],
      };
    }
    if (this.turn && !this.turn.isFinished) {
      throw new Error("A Codex turn is still running on this session; one turn at a time.");
    }
    const turn = new TurnCollector(this.id);
    this.turn = turn;
    const onAbort = (): void => void this.interruptTurn(turn);
    if (request.signal.aborted) {
      turn.finish("interrupted", "The turn was aborted before it was sent.");
      return turn.done;
    }
    request.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const started = await this.client.request("turn/start", {
        threadId: this.id,
        input: [{ type: "text", text: request.text, text_elements: [] }],
      });
      turn.started(started.turn.id);
      if (turn.interruptRequested) void this.interruptTurn(turn);
    } catch (error) {
      if (error instanceof AppServerExited) {
        turn.finish(
          "failed",
          withTail(`codex app-server exited (${error.exit}) during the turn`, error.stderrTail),
        );
      } else {
        turn.finish("failed", `Codex refused the turn: ${message(error)}`);
      }
    }
    try {
      return await turn.done;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Interrupts the running turn (`turn/interrupt`), if there is one. */
  async interrupt(): Promise<void> {
    if (this.turn && !this.turn.isFinished) await this.interruptTurn(this.turn);
  }

  /** Alive while the app-server runs and the session is open; otherwise how it ended. */
  health(): HarnessHealth {
    const exit = this.client.exitDescription;
    if (exit !== undefined) return { alive: false, exit, stderrTail: this.stderrTail() };
    if (this.closing) return { alive: false, exit: "closed" };
    return { alive: true };
  }

  /**
   * Ends the session: closes the app-server's stdin (Codex exits and stops its MCP servers),
   * waits briefly, then stops the process group. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.turn?.finish("interrupted", "The session closed during the turn.");
      const lease = this.lease;
      if (!lease) {
        await this.client.close(CLOSE_GRACE_MS);
        return;
      }
      // A warm app-server stays: this thread is let go and its MCP servers stopped.
      for (const stop of this.stops.splice(0)) stop();
      await this.client
        .request("thread/unsubscribe", { threadId: this.id }, { timeoutMs: CLOSE_GRACE_MS })
        .catch(() => undefined);
      await stopSessionServers(this.client.process.pid, this.launch.servers, CLOSE_GRACE_MS);
      lease.release();
    })();
    return this.closing;
  }

  /**
   * Asks Codex to interrupt `turn` (once), and ends the turn `interrupted` if Codex has not
   * confirmed within the grace period. Before Codex has named the turn, the request goes out
   * as soon as it does.
   */
  private interruptTurn(turn: TurnCollector): Promise<void> {
    if (turn.isFinished) return Promise.resolve();
    if (!turn.interruptRequested) {
      turn.interruptRequested = true;
      const timer = setTimeout(
        () =>
          turn.finish(
            "interrupted",
            `The turn was interrupted; Codex did not confirm within ${INTERRUPT_GRACE_MS} ms.`,
          ),
        INTERRUPT_GRACE_MS,
      );
      void turn.done.then(() => clearTimeout(timer));
    }
    const turnId = turn.codexTurnId;
    if (turnId === undefined) return Promise.resolve();
    turn.interrupting ??= this.client
      .request("turn/interrupt", { threadId: this.id, turnId }, { timeoutMs: INTERRUPT_GRACE_MS })
      .then(
        () => undefined,
        () => undefined,
      );
    return turn.interrupting;
  }

  private onNotification(notification: ServerNotification): void {
    this.turn?.accept(notification);
    if (notification.method === "warning" || notification.method === "configWarning") {
      const params = notification.params as { message?: Json; summary?: Json } | null;
      const text = String(params?.message ?? params?.summary ?? "");
      if (text && !this.warnings.has(text)) {
        this.warnings.add(text);
        this.launch.record({ kind: "harness", detail: `Codex warning: ${text}` });
      }
    }
  }

  private onServerRequest(request: ServerRequest): Json | Promise<Json> {
    const planned = this.fromPlan(request);
    if (planned) {
      const turn = this.turn;
      return planned.then((answer) => {
        turn?.note({ request, answer });
        return answer;
      });
    }
    const answer = this.answer(request);
    this.turn?.note({ request, answer });
    return answer;
  }

  /**
   * An MCP server's own elicitation, when the session has a plan: the plan answers, and
   * Codex passes the answer (with the form's content) back to the server. Codex's
   * tool-call approvals, which come by the same method, are never the plan's to answer.
   */
  private fromPlan(request: ServerRequest): Promise<Json> | undefined {
    const responder = this.launch.elicitation;
    if (!responder || request.method !== "mcpServer/elicitation/request") return undefined;
    const params = request.params as unknown as ElicitationRequestParams;
    if (params._meta?.codex_approval_kind !== undefined) return undefined;
    const mode = params.mode === "url" ? "url" : "form";
    return responder
      .answer({
        server: params.serverName,
        mode,
        message: params.message ?? "",
        ...(params.requestedSchema ? { requestedSchema: params.requestedSchema } : {}),
        ...(typeof params.url === "string" ? { url: params.url } : {}),
        ...(typeof params.elicitationId === "string"
          ? { elicitationId: params.elicitationId }
          : {}),
      })
      .then(({ answer }): Json => {
        const response: ElicitationResponse = {
          action: answer.action,
          content:
            answer.action === "accept" && mode === "form"
              ? ((answer.content ?? {}) as ElicitationResponse["content"])
              : null,
          _meta: null,
        };
        return { ...response };
      });
  }

  private answer(request: ServerRequest): Json {
    switch (request.method) {
      case "mcpServer/elicitation/request":
        return { ...this.answerElicitation(request.params as unknown as ElicitationRequestParams) };
      case "item/commandExecution/requestApproval":
      case "item/fileChange/requestApproval":
        this.launch.record({
          kind: "approval",
          detail: `declined ${request.method}: the harness runs no commands or edits for tests`,
        });
        return { decision: "decline" };
      case "applyPatchApproval":
      case "execCommandApproval":
        this.launch.record({
          kind: "approval",
          detail: `declined ${request.method}: the harness runs no commands or edits for tests`,
        });
        return {
          decision: { denied: { rejection: "jest-m3 runs no commands or edits in tests" } },
        };
      case "item/permissions/requestApproval":
        this.launch.record({
          kind: "approval",
          detail: "granted no extra permissions (item/permissions/requestApproval)",
        });
        return { permissions: {}, scope: "turn" };
      case "item/tool/requestUserInput":
        this.launch.record({
          kind: "approval",
          detail: "answered no questions (item/tool/requestUserInput): a test has no user",
        });
        return { answers: {} };
      default:
        throw new Error(`jest-m3's Codex harness does not answer ${request.method}`);
    }
  }

  private answerElicitation(params: ElicitationRequestParams): ElicitationResponse {
    const server = params.serverName;
    const tool = params._meta?.tool_name;
    if (params._meta?.codex_approval_kind === "mcp_tool_call" && typeof tool === "string") {
      const allowed = isToolAllowed(this.launch.toolPolicy, server, tool);
      this.launch.record({
        kind: "approval",
        detail: allowed
          ? `accepted ${server}:${tool} (in the session's allow-list)`
          : `declined ${server}:${tool} (not in the session's allow-list)`,
      });
      if (!allowed) this.turn?.declinedCall(server, tool);
      return { action: allowed ? "accept" : "decline", content: null, _meta: null };
    }
    this.launch.record({
      kind: "approval",
      detail: `declined an elicitation from MCP server ${server}: a test has no user to ask${params.message ? ` (${params.message})` : ""}`,
    });
    return { action: "decline", content: null, _meta: null };
  }
}
