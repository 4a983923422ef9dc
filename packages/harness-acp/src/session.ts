import {
  HarnessStartError,
  isToolAllowed,
  stopSessionServers,
  type AdapterTurn,
  type AdapterTurnRequest,
  type HarnessHealth,
  type HarnessLaunch,
  type HarnessSession,
} from "@jest-m3/core/harness";
import { AcpClient } from "./acp-client.js";
import { sessionMcpServers } from "./config.js";
import { AcpRpcError, AgentExited, AgentTimeout } from "./errors.js";
import { createAgentHome, type AgentHome } from "./home.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResolvedCommonOptions } from "./options.js";
import type { AcpProfile, FoundExecutable } from "./profiles/profile.js";
import type {
  NewSessionResponse,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  StopReason,
} from "./protocol.js";
import { checkInitialize, INITIALIZE_PARAMS, type InitializeCheck } from "./readiness.js";
import { argumentsFromText, contentText, type SessionTools } from "./reported-calls.js";
import { assertDistinctToolNames } from "./tool-names.js";
import { TurnCollector } from "./turn.js";
import { acquireWarmAgent, type WarmLease } from "./warm-pool.js";

/** How long a cancelled turn waits for the agent to confirm before it ends anyway. */
const CANCEL_GRACE_MS = 2000;
/** How long `close()` waits for the agent to exit after it was asked to, before signals. */
const CLOSE_GRACE_MS = 2000;

function message(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}

function withTail(agent: string, text: string, tail: string): string {
  return tail ? `${text}\n--- ${agent} stderr (last lines) ---\n${tail}` : text;
}

function startError(
  agent: string,
  error: unknown,
  client: AcpClient,
  aborted: boolean,
): HarnessStartError {
  if (error instanceof HarnessStartError) return error;
  const stderrTail = client.stderrTail();
  if (aborted) {
    return new HarnessStartError(agent, `the session was torn down while ${agent} was starting`, {
      stderrTail,
      cause: error,
    });
  }
  if (error instanceof AgentExited) {
    return new HarnessStartError(agent, `${agent} exited (${error.exit}) while starting`, {
      stderrTail,
      cause: error,
    });
  }
  if (error instanceof AcpRpcError || error instanceof AgentTimeout) {
    return new HarnessStartError(agent, error.message, { stderrTail, cause: error });
  }
  return new HarnessStartError(agent, message(error), { stderrTail, cause: error });
}

/**
 * `session/new` in the launch's workspace with its captured MCP servers, once the agent's
 * `initialize` answer says it takes them (HTTP servers need `mcpCapabilities.http`).
 */
async function newSession(
  harness: string,
  client: AcpClient,
  check: InitializeCheck,
  launch: HarnessLaunch,
  wait: { timeoutMs: number; signal: AbortSignal },
): Promise<NewSessionResponse & { sessionId: string }> {
  const http = launch.servers.filter((server) => server.kind === "http");
  if (http.length > 0 && check.mcpHttp.status !== "ready") {
    throw new HarnessStartError(
      harness,
      `${check.mcpHttp.reason ?? ""} (HTTP servers: ${http.map((server) => server.name).join(", ")})`,
    );
  }
  const session = await client.request(
    "session/new",
    { cwd: launch.workspace, mcpServers: sessionMcpServers(launch.servers) },
    wait,
  );
  if (typeof session.sessionId !== "string" || session.sessionId === "") {
    throw new HarnessStartError(
      harness,
      `session/new answered without a session id: ${JSON.stringify(session).slice(0, 300)}`,
    );
  }
  return session;
}

/**
 * Opens a session of `profile`'s agent: one process in a fresh HOME, XDG folders and
 * TMPDIR, `initialize`, then `session/new` in the launch's workspace with the captured MCP
 * servers, then whatever the profile does next (pick the model).
 *
 * @throws {@link HarnessStartError} with the agent's words and its stderr tail.
 */
export function openAcpSession<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
): (launch: HarnessLaunch) => Promise<AcpSession> {
  return async (launch) => {
    const agent = profile.agent;
    const options = profile.resolveOptions(launch.selection.options);
    const executable = profile.executable(launch.selection, launch.config, options);
    if (!executable.found) throw new HarnessStartError(profile.name, executable.reason);
    const credentials = profile.credentials(
      launch.provider,
      launch.credentials,
      launch.model,
      options,
    );
    if (credentials.status !== "ready") {
      throw new HarnessStartError(profile.name, credentials.reason ?? "no credentials");
    }
    if (profile.naming) {
      assertDistinctToolNames(
        profile.naming,
        launch.servers.map((server) => server.name),
        launch.toolPolicy,
        options.exposeDisallowedTools,
      );
    }
    if (options.warm) return openWarmSession(profile, launch, options, executable);
    const home = await createAgentHome(await launch.tempDir(`m3-${profile.name}-`));
    const plan = await profile.plan({ launch, home, options, executable });
    if (launch.signal.aborted) {
      throw new HarnessStartError(
        profile.name,
        `the session was torn down before ${agent} started`,
      );
    }
    const child = launch.spawn({
      label: `${agent} (${profile.name})`,
      command: executable.command,
      args: [...executable.prefix, ...plan.args],
      env: plan.env,
      cwd: launch.workspace,
    });
    const client = new AcpClient(agent, child);
    const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
    try {
      await child.spawned;
      await client.connect();
      const answer = await client.request("initialize", INITIALIZE_PARAMS, wait);
      const check = checkInitialize(agent, answer);
      for (const capability of [check.acp, check.mcpStdio]) {
        if (capability.status !== "ready")
          throw new HarnessStartError(profile.name, capability.reason ?? "");
      }
      const session = await newSession(profile.name, client, check, launch, wait);
      await profile.afterSessionNew?.({ launch, options, client, session });
      return new AcpSession(client, launch, profile, profile.stop(options), session.sessionId);
    } catch (error) {
      const failure = startError(profile.name, error, client, launch.signal.aborted);
      await client.close(profile.stop(options), 300);
      throw failure;
    }
  };
}

/**
 * Opens a session on a warm agent (`options: { warm: true }`): its own ACP session, with
 * its own workspace and MCP servers, in an agent process shared only with sessions whose
 * plan (executable, arguments, environment, home files) is the same (see warm-pool.ts).
 */
async function openWarmSession<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  launch: HarnessLaunch,
  options: O,
  executable: FoundExecutable,
): Promise<AcpSession> {
  const agent = profile.agent;
  // The pool owns the home (it outlives this session), so it is not one of the kit's folders.
  const root = await mkdtemp(join(tmpdir(), `m3-${profile.name}-warm-`));
  let home: AgentHome;
  let plan: Awaited<ReturnType<typeof profile.plan>>;
  try {
    home = await createAgentHome(root);
    plan = await profile.plan({ launch, home, options, executable });
    if (launch.signal.aborted) {
      throw new HarnessStartError(
        profile.name,
        `the session was torn down before ${agent} started`,
      );
    }
  } catch (error) {
    // Not handed to the pool yet: the folder is still this session's to remove.
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  let lease: WarmLease;
  try {
    lease = await acquireWarmAgent(
      {
        agent,
        harness: profile.name,
        command: executable.command,
        args: [...executable.prefix, ...plan.args],
        env: plan.env,
        home,
        stop: profile.stop(options),
      },
      options.startupTimeoutMs,
    );
  } catch (error) {
    throw new HarnessStartError(
      profile.name,
      `the warm ${agent} did not start: ${message(error)}`,
      {
        cause: error,
      },
    );
  }
  const client = lease.client;
  launch.record({
    kind: "harness",
    detail: `${lease.started ? "started a warm" : "reused the warm"} ${agent} (pid ${client.process.pid ?? "unknown"})`,
  });
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  let sessionId: string | undefined;
  try {
    const check = checkInitialize(agent, lease.initialize);
    const session = await newSession(profile.name, client, check, launch, wait);
    sessionId = session.sessionId;
    await profile.afterSessionNew?.({ launch, options, client, session });
    return new AcpSession(client, launch, profile, profile.stop(options), sessionId, lease);
  } catch (error) {
    // Another session's lines may be in the shared stderr: none of it goes into this error.
    const failure =
      error instanceof HarnessStartError
        ? error
        : new HarnessStartError(
            profile.name,
            launch.signal.aborted
              ? `the session was torn down while ${agent} was starting`
              : message(error),
            { cause: error },
          );
    await leaveWarmSession(client, lease, sessionId, launch);
    throw failure;
  }
}

/** Whether the agent advertised `session/close` in its `initialize` answer. */
function closesSessions(lease: WarmLease): boolean {
  const capabilities = lease.initialize.agentCapabilities?.sessionCapabilities as
    { close?: unknown } | null | undefined;
  return capabilities?.close !== undefined && capabilities.close !== null;
}

/**
 * Leaves an ACP session of a warm agent so that nothing of it keeps running:
 * `session/close` where the agent offers it, then its MCP servers stopped (the agents keep
 * them either way), then the lease released.
 */
async function leaveWarmSession(
  client: AcpClient,
  lease: WarmLease,
  sessionId: string | undefined,
  launch: HarnessLaunch,
): Promise<void> {
  if (sessionId !== undefined && closesSessions(lease) && client.exitDescription === undefined) {
    await client
      .request("session/close", { sessionId }, { timeoutMs: CLOSE_GRACE_MS })
      .catch(() => undefined);
  }
  await stopSessionServers(client.process.pid, launch.servers, CLOSE_GRACE_MS);
  lease.release();
}

function pick(
  options: readonly PermissionOption[],
  kinds: readonly string[],
): PermissionOption | undefined {
  for (const kind of kinds) {
    const found = options.find((option) => option.kind === kind);
    if (found) return found;
  }
  return undefined;
}

/**
 * One ACP session in one agent process: every `send()` is a `session/prompt` on the same
 * session id. Permission requests are answered from the session's allow-list and
 * recorded; the updates become the turn's response text and reported tool calls.
 */
export class AcpSession implements HarnessSession {
  private turn: TurnCollector | undefined;
  private closing: Promise<void> | undefined;
  private readonly tools: SessionTools;
  private readonly stops: (() => void)[] = [];

  /** @internal Made by {@link openAcpSession}. */
  constructor(
    private readonly client: AcpClient,
    private readonly launch: HarnessLaunch,
    private readonly profile: Pick<AcpProfile, "agent" | "identify">,
    private readonly stopWith: "stdin" | "sigterm",
    /** The ACP session id. */
    readonly id: string,
    /** Set when the agent is a warm one shared with other sessions. */
    private readonly lease?: WarmLease,
  ) {
    this.tools = {
      servers: launch.servers.map((server) => server.name),
      policy: launch.toolPolicy,
    };
    this.stops.push(
      // On a shared agent, only this session's updates and requests reach these handlers.
      client.handle(
        {
          onUpdate: (notification) => this.turn?.accept(notification),
          onPermission: (request) => this.answerPermission(request),
          onRefused: (method) => {
            this.launch.record({
              kind: "harness",
              detail: `refused ${method}: the harness serves no files, terminals or questions`,
            });
            this.turn?.note({ refused: method });
          },
        },
        lease ? id : undefined,
      ),
      client.onExit((exit) => {
        this.turn?.finish(
          "failed",
          withTail(this.agent, `${this.agent} exited (${exit}) during the turn`, this.stderrTail()),
        );
      }),
      client.onProblem((problem) => {
        const what =
          problem.kind === "too_long"
            ? `a line longer than the transport takes (${problem.line.slice(0, 80)}...)`
            : `a line that is not an ACP message: ${JSON.stringify(problem.line.slice(0, 200))}`;
        this.launch.record({ kind: "harness", detail: `${this.agent} wrote ${what}` });
        this.turn?.finish("failed", `${this.agent} broke the protocol: it wrote ${what}`);
      }),
    );
  }

  /** The agent's stderr tail; none for a shared one (other sessions' lines are in it). */
  private stderrTail(): string {
    return this.lease ? "" : this.client.stderrTail();
  }

  private get agent(): string {
    return this.profile.agent;
  }

  /** The agent's process id (for diagnosis and fault tests). */
  get pid(): number | undefined {
    return this.client.process.pid;
  }

  /**
   * Sends one user turn (`session/prompt`) and resolves when the agent answers it, when the
   * turn's signal aborts (after `session/cancel`, with outcome `interrupted`), or when the
   * agent dies or breaks the protocol (outcome `failed`).
   */
  async send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    const exit = this.client.exitDescription;
    if (exit !== undefined || this.closing) {
      const why =
        exit !== undefined ? `${this.agent} is not running (${exit})` : "the session is closed";
      return {
        outcome: "failed",
        response: null,
        error: withTail(this.agent, why, this.stderrTail()),
        toolCalls: [],
        events: [],
      };
    }
    if (this.turn && !this.turn.isFinished) {
      throw new Error(`A ${this.agent} turn is still running on this session; one turn at a time.`);
    }
    const turn = new TurnCollector(
      this.id,
      this.agent,
      (call) => this.profile.identify(call, this.tools),
      (identity) => isToolAllowed(this.launch.toolPolicy, identity.server, identity.tool),
    );
    this.turn = turn;
    if (request.signal.aborted) {
      turn.finish("interrupted", "The turn was aborted before it was sent.");
      return turn.done;
    }
    const onAbort = (): void => this.cancelTurn(turn);
    request.signal.addEventListener("abort", onAbort, { once: true });
    this.client
      .request("session/prompt", {
        sessionId: this.id,
        prompt: [{ type: "text", text: request.text }],
      })
      .then(
        (answer) => this.onStop(turn, answer.stopReason),
        (error: unknown) => {
          if (error instanceof AgentExited) {
            turn.finish(
              "failed",
              withTail(
                this.agent,
                `${this.agent} exited (${error.exit}) during the turn`,
                this.lease ? "" : error.stderrTail,
              ),
            );
          } else if (error instanceof AcpRpcError) {
            turn.finish(turn.cancelRequested ? "interrupted" : "failed", error.message);
          } else {
            turn.finish("failed", `${this.agent} failed the turn: ${message(error)}`);
          }
        },
      );
    try {
      return await turn.done;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Cancels the running turn (`session/cancel`), if there is one. */
  interrupt(): Promise<void> {
    if (this.turn && !this.turn.isFinished) this.cancelTurn(this.turn);
    return this.turn ? this.turn.done.then(() => undefined) : Promise.resolve();
  }

  /** Alive while the agent runs and the session is open; otherwise how it ended. */
  health(): HarnessHealth {
    const exit = this.client.exitDescription;
    if (exit !== undefined) return { alive: false, exit, stderrTail: this.stderrTail() };
    if (this.closing) return { alive: false, exit: "closed" };
    return { alive: true };
  }

  /**
   * Ends the session: stops the agent the way it needs (SIGTERM for Gemini CLI, closing
   * stdin for OpenCode), waits briefly, then stops its process group. On a warm agent the
   * process stays: a running turn is cancelled, the ACP session closed (`session/close`,
   * where the agent offers it) and its MCP servers stopped. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const running = this.turn && !this.turn.isFinished;
      this.turn?.finish("interrupted", "The session closed during the turn.");
      const lease = this.lease;
      if (!lease) {
        await this.client.close(this.stopWith, CLOSE_GRACE_MS);
        return;
      }
      if (running) this.client.notify("session/cancel", { sessionId: this.id });
      for (const stop of this.stops.splice(0)) stop();
      await leaveWarmSession(this.client, lease, this.id, this.launch);
    })();
    return this.closing;
  }

  private onStop(turn: TurnCollector, reason: StopReason): void {
    switch (reason) {
      case "end_turn":
        turn.finish("completed", null);
        return;
      case "cancelled":
        turn.finish("interrupted", `${this.agent} cancelled the turn (session/cancel).`);
        return;
      default:
        turn.finish("failed", `${this.agent} stopped the turn early: ${reason}`);
    }
  }

  /** Sends `session/cancel` once, and ends the turn if the agent does not confirm in time. */
  private cancelTurn(turn: TurnCollector): void {
    if (turn.isFinished || turn.cancelRequested) return;
    turn.cancelRequested = true;
    this.client.notify("session/cancel", { sessionId: this.id });
    const timer = setTimeout(
      () =>
        turn.finish(
          "interrupted",
          `The turn was cancelled; ${this.agent} did not confirm within ${CANCEL_GRACE_MS} ms.`,
        ),
      CANCEL_GRACE_MS,
    );
    void turn.done.then(() => clearTimeout(timer));
  }

  private answerPermission(request: RequestPermissionRequest): RequestPermissionResponse {
    const call = request.toolCall;
    const identity = this.profile.identify(call, this.tools);
    const shown = call.title ?? call.toolCallId;
    const allowed = identity
      ? isToolAllowed(this.launch.toolPolicy, identity.server, identity.tool)
      : false;
    const option = allowed
      ? pick(request.options, ["allow_once", "allow_always"])
      : pick(request.options, ["reject_once", "reject_always"]);
    const name = identity ? `${identity.server}:${identity.tool}` : `"${shown}"`;
    const why = allowed
      ? "in the session's allow-list"
      : identity
        ? "not in the session's allow-list"
        : `not an MCP tool of the session; the harness allows only those`;
    this.launch.record({
      kind: "approval",
      detail: `${allowed ? "allowed" : "refused"} ${name} (${why})${option ? "" : "; no such option was offered, so the request was cancelled"}`,
    });
    const args =
      typeof call.rawInput === "object" &&
      call.rawInput !== null &&
      Object.keys(call.rawInput).length > 0
        ? (call.rawInput as Record<string, unknown>)
        : argumentsFromText(contentText(call.content ?? undefined)[0]);
    this.turn?.permission(call, identity, !allowed, args);
    this.turn?.note({
      permission: {
        toolCallId: call.toolCallId,
        title: shown,
        allowed,
        option: option?.optionId ?? null,
      },
    });
    return option
      ? { outcome: { outcome: "selected", optionId: option.optionId } }
      : { outcome: { outcome: "cancelled" } };
  }
}
