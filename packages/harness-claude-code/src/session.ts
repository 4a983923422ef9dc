import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  HarnessStartError,
  isToolAllowed,
  type AdapterTurn,
  type AdapterTurnRequest,
  type ElicitationAnswer,
  type HarnessHealth,
  type HarnessLaunch,
  type HarnessSession,
} from "@jest-m3/core/harness";
import { claudeArgs, denyRules, mcpServers, normalizeName } from "./config.js";
import { ClaudeCodeExited, ClaudeCodeTimeout, ClaudeControlError } from "./errors.js";
import { claudeEnvironment, copyHostLogin, createHomes, type ClaudeHomes } from "./home.js";
import { resolveClaudeCodeOptions, type ResolvedClaudeCodeOptions } from "./options.js";
import type {
  CanUseToolRequest,
  ElicitationControlRequest,
  HostControlRequest,
  Json,
  McpServerStatus,
  PermissionAnswer,
  ResultMessage,
  StreamMessage,
} from "./protocol.js";
import { credentialsCapability, HARNESS_NAME, launchFacts } from "./readiness.js";
import { mcpToolName } from "./reported-calls.js";
import { StreamJsonClient } from "./stream-json-client.js";
import { TurnCollector } from "./turn.js";
import { acquireWarmClaude, endConversation, mcpLogFiles, type WarmLease } from "./warm-pool.js";

/** How long an interrupted turn waits for Claude Code to confirm before it ends anyway. */
const INTERRUPT_GRACE_MS = 1500;
/** How long `close()` waits for Claude Code to exit after its stdin closed, before signals. */
const CLOSE_GRACE_MS = 1500;
/** How long a warm session's close gets to reset the process for the next session. */
const RESET_TIMEOUT_MS = 5000;
/** How often `mcp_status` is asked while a server is still pending. */
const STATUS_POLL_MS = 100;
const TORN_DOWN = "the session was torn down while Claude Code was starting";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTail(text: string, tail: string): string {
  return tail ? `${text}\n--- claude stderr (last lines) ---\n${tail}` : text;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * What Claude Code's own MCP log says a server wrote to stderr before it failed (its
 * `mcp-logs-<server>` files under the isolated HOME): the words that say why. Files in
 * `skip` (a warm process's logs of earlier sessions) are not read.
 */
export async function serverStderr(
  homes: ClaudeHomes,
  server: string,
  skip: ReadonlySet<string> = new Set(),
): Promise<string> {
  const cache = join(homes.home, ".cache", "claude-cli-nodejs");
  const lines: string[] = [];
  try {
    for (const project of await readdir(cache)) {
      const dir = join(cache, project, `mcp-logs-${normalizeName(server)}`);
      let files: string[];
      try {
        files = (await readdir(dir)).sort();
      } catch {
        continue;
      }
      for (const file of files) {
        if (skip.has(join(dir, file))) continue;
        for (const line of (await readFile(join(dir, file), "utf8")).split("\n")) {
          try {
            const entry = JSON.parse(line) as { error?: unknown; debug?: unknown };
            const text = typeof entry.error === "string" ? entry.error : "";
            if (text.startsWith("Server stderr:")) lines.push(text.slice(14).trim());
          } catch {
            // Not a JSON line.
          }
        }
      }
    }
  } catch {
    return "";
  }
  return [...new Set(lines)].join("\n").slice(-4000);
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
  const deadline = Date.now() + options.startupTimeoutMs;
  for (;;) {
    if (signal.aborted) throw new HarnessStartError(HARNESS_NAME, TORN_DOWN);
    const answer = await client.control(
      { subtype: "mcp_status" },
      { timeoutMs: Math.max(1000, deadline - Date.now()), signal },
    );
    const statuses = (Array.isArray(answer.mcpServers)
      ? answer.mcpServers
      : []) as unknown as McpServerStatus[];
    const mine = statuses.filter((status) => names.includes(status.name));
    const pending = names.filter(
      (name) => !mine.some((status) => status.name === name && status.status !== "pending"),
    );
    if (pending.length === 0) {
      const failed = mine.filter((status) => status.status !== "connected");
      if (failed.length > 0) {
        const details = await Promise.all(
          failed.map(async (status) => {
            const stderr = await serverStderr(homes, status.name, skipLogs);
            return (
              `MCP server "${status.name}" ${status.status === "failed" ? "failed to start" : `is ${status.status}`}: ` +
              `${status.error ?? "Claude Code gave no reason"}${stderr ? `\n--- ${status.name} stderr ---\n${stderr}` : ""}`
            );
          }),
        );
        throw new HarnessStartError(HARNESS_NAME, details.join("\n"), {
          stderrTail: client.stderrTail(),
        });
      }
      return mine;
    }
    if (Date.now() >= deadline) {
      throw new HarnessStartError(
        HARNESS_NAME,
        `MCP servers not connected within ${options.startupTimeoutMs} ms: ${pending.map((name) => `"${name}"`).join(", ")}`,
        { stderrTail: client.stderrTail() },
      );
    }
    await delay(STATUS_POLL_MS, signal);
  }
}

function startError(error: unknown, client: StreamJsonClient, aborted: boolean): HarnessStartError {
  if (error instanceof HarnessStartError) return error;
  const stderrTail = client.stderrTail();
  if (aborted) return new HarnessStartError(HARNESS_NAME, TORN_DOWN, { stderrTail, cause: error });
  if (error instanceof ClaudeCodeExited) {
    return new HarnessStartError(
      HARNESS_NAME,
      `Claude Code exited (${error.exit}) while starting`,
      {
        stderrTail,
        cause: error,
      },
    );
  }
  if (error instanceof ClaudeCodeTimeout || error instanceof ClaudeControlError) {
    return new HarnessStartError(HARNESS_NAME, error.message, { stderrTail, cause: error });
  }
  return new HarnessStartError(HARNESS_NAME, message(error), { stderrTail, cause: error });
}

/**
 * Opens a Claude Code session: one `claude --print` process in stream-json mode, in a fresh
 * HOME and CLAUDE_CONFIG_DIR, with the captured MCP servers given over stdin, every server
 * connected and the tools outside the allow-list hidden before it returns.
 *
 * @throws {@link HarnessStartError} with Claude Code's words (and the MCP server's name and
 * stderr when a server failed to start) and Claude Code's stderr tail.
 */
export async function openClaudeCodeSession(launch: HarnessLaunch): Promise<ClaudeCodeSession> {
  const options = resolveClaudeCodeOptions(launch.selection.options);
  const facts = launchFacts(launch.selection, launch.config);
  if (!facts.executable.found) throw new HarnessStartError(HARNESS_NAME, facts.executable.reason);
  const credentials = credentialsCapability(launch.provider, launch.credentials, facts.login);
  if (credentials.status !== "ready") {
    throw new HarnessStartError(HARNESS_NAME, credentials.reason ?? "no credentials");
  }
  const executable = facts.executable.path;
  if (options.warm) return openWarmSession(launch, options, executable, facts.login);
  const homes = await createHomes(await launch.tempDir("m3-claude-"));
  if (!launch.provider && launch.credentials.length === 0 && facts.login.usable) {
    await copyHostLogin(facts.login, homes);
    launch.record({
      kind: "harness",
      detail: `using the Claude Code login of ${facts.login.credentialsFile}`,
    });
  }
  if (launch.signal.aborted) throw new HarnessStartError(HARNESS_NAME, TORN_DOWN);
  const sessionId = randomUUID();
  const child = launch.spawn({
    label: "claude",
    command: executable,
    args: claudeArgs(launch, options, sessionId),
    env: claudeEnvironment(launch.env, homes, launch.provider, options),
    cwd: launch.workspace,
  });
  const client = new StreamJsonClient(child);
  try {
    await child.spawned;
    await configureServers(client, launch, homes, options);
    return new ClaudeCodeSession(client, launch, sessionId, options);
  } catch (error) {
    const failure = startError(error, client, launch.signal.aborted);
    await client.close(300);
    throw failure;
  }
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
 * Opens a session on a warm Claude Code process (`options: { warm: true }`): one started
 * with exactly this session's command line, environment and home files, idle, and reset by
 * the session before (see warm-pool.ts), or a new one. The session then gives it its own
 * MCP servers and deny rules, as a cold session does.
 */
async function openWarmSession(
  launch: HarnessLaunch,
  options: ResolvedClaudeCodeOptions,
  executable: string,
  login: ReturnType<typeof launchFacts>["login"],
): Promise<ClaudeCodeSession> {
  // The pool owns the folder (it outlives this session), so it is not one of the kit's.
  const root = await mkdtemp(join(tmpdir(), "m3-claude-warm-"));
  let lease: WarmLease;
  try {
    const homes = await createHomes(root);
    if (!launch.provider && launch.credentials.length === 0 && login.usable) {
      await copyHostLogin(login, homes);
      launch.record({
        kind: "harness",
        detail: `using the Claude Code login of ${login.credentialsFile}`,
      });
    }
    if (launch.signal.aborted) throw new HarnessStartError(HARNESS_NAME, TORN_DOWN);
    lease = await acquireWarmClaude({
      command: executable,
      args: claudeArgs(launch, options, undefined),
      env: claudeEnvironment(launch.env, homes, launch.provider, options),
      root,
    });
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    if (error instanceof HarnessStartError) throw error;
    throw new HarnessStartError(
      HARNESS_NAME,
      `the warm Claude Code did not start: ${message(error)}`,
      {
        cause: error,
      },
    );
  }
  const client = lease.client;
  // Only what Claude Code writes for this session goes into its errors.
  client.markStderr();
  launch.record({
    kind: "harness",
    detail: `${lease.started ? "started a warm" : "reused the warm"} Claude Code (pid ${client.process.pid ?? "unknown"})`,
  });
  try {
    await configureServers(client, launch, lease.homes, options, mcpLogFiles(lease.homes));
    return new ClaudeCodeSession(client, launch, "", options, lease);
  } catch (error) {
    const failure = startError(error, client, launch.signal.aborted);
    await lease.release(false);
    throw failure;
  }
}

/**
 * One Claude Code conversation in one long-lived `claude --print` process: every `send()`
 * is a user message on its stdin, the turn ends at Claude Code's `result`. Permission
 * prompts are answered from the session's allow-list and recorded.
 */
export class ClaudeCodeSession implements HarnessSession {
  private turn: TurnCollector | undefined;
  private closing: Promise<void> | undefined;
  private readonly servers: readonly string[];
  private readonly detach: (() => void)[] = [];
  private sessionId: string;

  /** @internal Made by {@link openClaudeCodeSession}. */
  constructor(
    private readonly client: StreamJsonClient,
    private readonly launch: HarnessLaunch,
    sessionId: string,
    private readonly options: ResolvedClaudeCodeOptions,
    /** Set when the process is a warm one, handed on to the next session at close. */
    private readonly lease?: WarmLease,
  ) {
    this.sessionId = sessionId;
    this.servers = launch.servers.map((server) => server.name);
    this.detach.push(client.onMessage((streamMessage) => this.onMessage(streamMessage)));
    client.handleHostRequests((request) => this.onHostRequest(request));
    this.detach.push(
      client.onExit((exit) => {
        this.turn?.finish(
          "failed",
          withTail(`Claude Code exited (${exit}) during the turn`, client.stderrTail()),
        );
      }),
      () => client.handleHostRequests(undefined),
    );
  }

  /**
   * The Claude Code session id: given with `--session-id`, or on a warm process the one
   * Claude Code reports for this session's conversation (empty before the first turn).
   */
  get id(): string {
    return this.sessionId;
  }

  /** Claude Code's process id (for diagnosis and fault tests). */
  get pid(): number | undefined {
    return this.client.process.pid;
  }

  /**
   * Sends one user turn and resolves at Claude Code's `result`, when the turn's signal
   * aborts (after an `interrupt` control request, with outcome `interrupted`), or when the
   * process dies (outcome `failed`, with its stderr tail).
   */
  async send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    const exit = this.client.exitDescription;
    if (exit !== undefined || this.closing) {
      const why =
        exit !== undefined ? `Claude Code is not running (${exit})` : "the session is closed";
      return {
        outcome: "failed",
        response: null,
        error: withTail(why, this.client.stderrTail()),
        toolCalls: [],
        events: [],
      };
    }
    if (this.turn && !this.turn.isFinished) {
      throw new Error("A Claude Code turn is still running on this session; one turn at a time.");
    }
    const turn = new TurnCollector(this.servers, this.launch.toolPolicy);
    this.turn = turn;
    if (request.signal.aborted) {
      turn.finish("interrupted", "The turn was aborted before it was sent.");
      return turn.done;
    }
    const onAbort = (): void => void this.interruptTurn(turn);
    request.signal.addEventListener("abort", onAbort, { once: true });
    if (!this.client.sendUser(request.text)) {
      turn.finish("failed", withTail("Claude Code's stdin is closed", this.client.stderrTail()));
    }
    try {
      return await turn.done;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Interrupts the running turn (an `interrupt` control request), if there is one. */
  async interrupt(): Promise<void> {
    if (this.turn && !this.turn.isFinished) await this.interruptTurn(this.turn);
  }

  /** Alive while Claude Code runs and the session is open; otherwise how it ended. */
  health(): HarnessHealth {
    const exit = this.client.exitDescription;
    if (exit !== undefined) return { alive: false, exit, stderrTail: this.client.stderrTail() };
    if (this.closing) return { alive: false, exit: "closed" };
    return { alive: true };
  }

  /**
   * Ends the session: closes Claude Code's stdin (it exits and stops its MCP servers), waits
   * briefly, then stops the process group. On a warm process, removes the session's MCP
   * servers (they stop), its deny rules and its conversation instead, and hands the
   * process back; a process left mid-turn, or that does not confirm every step, is stopped.
   * Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const midTurn = this.turn !== undefined && !this.turn.isFinished;
      this.turn?.finish("interrupted", "The session closed during the turn.");
      if (!this.lease) {
        await this.client.close(CLOSE_GRACE_MS);
        return;
      }
      for (const detach of this.detach.splice(0)) detach();
      let reusable = !midTurn && this.client.exitDescription === undefined;
      if (reusable) {
        try {
          await endConversation(this.client, RESET_TIMEOUT_MS);
        } catch (error) {
          reusable = false;
          this.launch.record({
            kind: "harness",
            detail: `stopped the warm Claude Code: it did not reset for the next session (${message(error)})`,
          });
        }
      }
      await this.lease.release(reusable);
    })();
    return this.closing;
  }

  /**
   * Asks Claude Code to interrupt `turn` (once), and ends the turn `interrupted` if Claude
   * Code has not confirmed with a `result` within the grace period.
   */
  private async interruptTurn(turn: TurnCollector): Promise<void> {
    if (turn.isFinished || turn.interruptRequested) return turn.done.then(() => undefined);
    turn.interruptRequested = true;
    const timer = setTimeout(
      () =>
        turn.finish(
          "interrupted",
          `The turn was interrupted; Claude Code did not confirm within ${INTERRUPT_GRACE_MS} ms.`,
        ),
      INTERRUPT_GRACE_MS,
    );
    void turn.done.then(() => clearTimeout(timer));
    await this.client
      .control({ subtype: "interrupt" }, { timeoutMs: INTERRUPT_GRACE_MS })
      .catch(() => undefined);
    await turn.done;
  }

  private onMessage(streamMessage: StreamMessage): void {
    if (streamMessage.type === "system" && streamMessage.subtype === "init") {
      const id = (streamMessage as { session_id?: unknown }).session_id;
      if (typeof id === "string" && id !== "") this.sessionId = id;
    }
    const turn = this.turn;
    if (!turn) return;
    turn.accept(streamMessage);
    if (streamMessage.type === "result") this.recordDenials(streamMessage as ResultMessage);
  }

  /** Denials Claude Code decided on its own (not through `can_use_tool`) are recorded too. */
  private recordDenials(result: ResultMessage): void {
    for (const denial of result.permission_denials ?? []) {
      if (this.answered.has(denial.tool_use_id)) continue;
      this.launch.record({
        kind: "approval",
        detail: `Claude Code denied ${denial.tool_name} by its own permission rules`,
      });
    }
  }

  private readonly answered = new Set<string>();

  private onHostRequest(request: HostControlRequest): Json | Promise<Json> {
    if (request.request.subtype === "elicitation") {
      return this.answerElicitation(request.request as unknown as ElicitationControlRequest);
    }
    if (request.request.subtype !== "can_use_tool") {
      throw new Error(`jest-m3's Claude Code harness does not answer ${request.request.subtype}`);
    }
    const ask = request.request as unknown as CanUseToolRequest;
    const answer = this.permission(ask);
    if (ask.tool_use_id !== undefined) {
      this.answered.add(ask.tool_use_id);
      if (answer.behavior === "deny") this.turn?.deniedCall(ask.tool_use_id);
    }
    this.turn?.note({ permission: ask, answer });
    return answer as unknown as Json;
  }

  /**
   * An MCP server's elicitation, which Claude Code in stream-json mode asks its SDK host
   * (control request `elicitation`). The session's plan answers; without one, decline.
   */
  private async answerElicitation(ask: ElicitationControlRequest): Promise<Json> {
    const mode = ask.mode === "url" ? "url" : "form";
    const responder = this.launch.elicitation;
    let answer: ElicitationAnswer = { action: "decline" };
    if (responder) {
      ({ answer } = await responder.answer({
        server: ask.mcp_server_name,
        mode,
        message: ask.message ?? "",
        ...(ask.requested_schema ? { requestedSchema: ask.requested_schema } : {}),
        ...(typeof ask.url === "string" ? { url: ask.url } : {}),
        ...(typeof ask.elicitation_id === "string" ? { elicitationId: ask.elicitation_id } : {}),
      }));
    } else {
      this.launch.record({
        kind: "approval",
        detail: `declined an elicitation from MCP server ${ask.mcp_server_name}: the session has no elicitation plan`,
      });
    }
    const response: Json =
      answer.action === "accept" && answer.content !== undefined
        ? { action: "accept", content: answer.content as unknown as Json }
        : { action: answer.action };
    this.turn?.note({ elicitation: ask as unknown as Json, answer: response });
    return response;
  }

  private permission(ask: CanUseToolRequest): PermissionAnswer {
    const name = mcpToolName(ask.tool_name, this.servers);
    if (name !== undefined) {
      const allowed = isToolAllowed(this.launch.toolPolicy, name.server, name.tool);
      this.launch.record({
        kind: "approval",
        detail: allowed
          ? `accepted ${name.server}:${name.tool} (in the session's allow-list)`
          : `declined ${name.server}:${name.tool} (not in the session's allow-list)`,
      });
      return allowed
        ? { behavior: "allow", updatedInput: ask.input }
        : {
            behavior: "deny",
            message: `${name.server}:${name.tool} is not in the test's tool allow-list`,
          };
    }
    const builtin = this.options.builtinTools;
    if (builtin === "default" || builtin.includes(ask.tool_name)) {
      this.launch.record({
        kind: "approval",
        detail: `accepted ${ask.tool_name} (a built-in tool the selection's options enable)`,
      });
      return { behavior: "allow", updatedInput: ask.input };
    }
    this.launch.record({
      kind: "approval",
      detail: `declined ${ask.tool_name} (neither an allowed MCP tool nor an enabled built-in tool)`,
    });
    return { behavior: "deny", message: `${ask.tool_name} is not allowed in this test` };
  }
}
