import { randomUUID } from "node:crypto";
import { monotonicNow } from "../evidence/clock.js";
import { correlateTurn } from "../evidence/correlation.js";
import type { ToolCall, Trace } from "../evidence/trace.js";
import {
  HarnessNotReady,
  InvalidServerSpec,
  M3Error,
  SessionBusy,
  SessionClosed,
  SessionStillOpen,
} from "../errors.js";
import {
  HarnessStartError,
  isToolAllowed,
  type AdapterTurn,
  type HarnessSession,
  type Readiness,
} from "../harness/contract.js";
import { childEnvironment } from "../processes/managed-process.js";
import { resolveServer, type ServerSpec } from "../servers/spec.js";
import { parseToolPolicy, type ToolPolicy } from "../servers/tool-policy.js";
import type { WireCapture } from "../wire/capture.js";
import { notifyObservers } from "../kit/observers.js";
import type { AgentSelection, AgentServices } from "./agent.js";
import { ExecutionOutcome, Lifecycle, type TurnOutcome } from "./outcomes.js";
import type { ExecutionResult, TurnResult } from "./results.js";

/** Options of `agent.session()`. */
export interface SessionOptions {
  /** The one server of the session (or use `servers`). */
  readonly server?: ServerSpec;
  /** Several servers; names must be unique. */
  readonly servers?: readonly ServerSpec[];
  /** Allow-list `["server:tool", ...]`; omitted = all tools, `[]` = none. */
  readonly tools?: readonly string[];
  /** Default budget of each turn and of startup, in ms (default 120 000). */
  readonly timeout?: number;
}

/** Options of `send()`. */
export interface SendOptions {
  /** This turn's budget in ms; defaults to the session's `timeout`. */
  readonly timeout?: number;
}

const SESSION_KEYS = ["server", "servers", "tools", "timeout"];
const DEFAULT_TIMEOUT_MS = 120_000;
/** How long a timed-out or cancelled turn gets to wind down after the interrupt. */
const INTERRUPT_GRACE_MS = 2_000;

function sleep(ms: number): Promise<"grace"> {
  return new Promise((resolve) => setTimeout(() => resolve("grace"), ms).unref());
}

function positiveMs(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new M3Error(
      `Session option "${field}" must be a positive number of milliseconds, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/**
 * One conversation with an agent across several turns, with the wire evidence of every
 * turn. Lifecycle: `created → starting → idle ⇄ running_turn → closing → finished`.
 *
 * `open()` returns the session itself, disposable with `await using`; the
 * {@link AgentSession.result} is final once the session closed.
 */
export class AgentSession implements AsyncDisposable {
  /** Unique id of this execution. */
  readonly executionId = `exec-${randomUUID()}`;
  private readonly servers: readonly ServerSpec[];
  private readonly tools: readonly string[] | undefined;
  private readonly policy: ToolPolicy;
  private readonly timeoutMs: number;
  private state: Lifecycle = Lifecycle.CREATED;
  private outcome: ExecutionOutcome | null = null;
  private error: string | null = null;
  private readonly createdAt = monotonicNow();
  private finishedAt: number | null = null;
  private readonly turns: TurnResult[] = [];
  private harnessSession: HarnessSession | undefined;
  private capture: WireCapture | undefined;
  private readiness: Readiness | undefined;
  private running:
    { number: number; cancel: (reason: "cancelled") => void; done: Promise<void> } | undefined;
  private closing: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private readonly shutdown = new AbortController();
  private finalTrace: Trace | undefined;
  private reportedIds = 0;
  private finishing: Promise<void> | undefined;

  /** @internal Made by `agent.session()` and `agent.run()`. */
  constructor(
    private readonly agent: AgentSelection,
    options: SessionOptions,
    private readonly services: AgentServices,
    private readonly needs: { requireMultiTurn: boolean },
  ) {
    if (typeof options !== "object" || options === null) {
      throw new M3Error("agent.session() needs options { server | servers, tools?, timeout? }.");
    }
    for (const key of Object.keys(options)) {
      if (!SESSION_KEYS.includes(key)) {
        throw new M3Error(
          `Session option "${key}" is unknown; the options are ${SESSION_KEYS.join(", ")}.`,
        );
      }
    }
    if (options.server !== undefined && options.servers !== undefined) {
      throw new M3Error('Give either "server" or "servers" to agent.session(), not both.');
    }
    const servers = options.servers ?? (options.server !== undefined ? [options.server] : []);
    if (!Array.isArray(servers))
      throw new M3Error('Session option "servers" must be an array of server specs.');
    const names: string[] = [];
    for (const spec of servers) {
      const resolved = resolveServer(spec, services.cwd);
      if (names.includes(resolved.name)) {
        throw new InvalidServerSpec(
          JSON.stringify(resolved.name),
          "name",
          "is used by two servers; names must be unique.",
        );
      }
      names.push(resolved.name);
    }
    this.servers = servers;
    this.tools = options.tools;
    this.policy = parseToolPolicy(options.tools, names);
    this.timeoutMs = positiveMs(options.timeout, "timeout") ?? DEFAULT_TIMEOUT_MS;
  }

  /** Where the session is in its life. */
  get lifecycle(): Lifecycle {
    return this.state;
  }

  /** The harness's conversation id, once open. */
  get sessionId(): string | null {
    return this.harnessSession?.id ?? null;
  }

  /** Every turn so far. */
  get turnResults(): readonly TurnResult[] {
    return this.turns.slice();
  }

  /**
   * The final result: every turn, the complete trace, the outcome.
   *
   * @throws {@link SessionStillOpen} until the session has closed.
   */
  get result(): ExecutionResult {
    if (this.state !== Lifecycle.FINISHED) throw new SessionStillOpen();
    return this.snapshotResult();
  }

  /**
   * Starts the session: checks readiness (throws {@link HarnessNotReady} with every reason
   * before anything starts), wraps the servers for wire capture, and opens the harness.
   */
  async open(): Promise<this> {
    this.services.assertOpen("session.open()");
    if (this.state !== Lifecycle.CREATED) {
      throw new SessionClosed(
        "session.open()",
        this.state === Lifecycle.FINISHED ? "finished" : "already open",
      );
    }
    this.state = Lifecycle.STARTING;
    this.release = this.services.own(this);
    try {
      const readiness = await this.agent.readiness();
      this.readiness = readiness;
      this.stopIfClosedWhileOpening();
      // Only what this session needs blocks it: an adapter may honestly lack the rest.
      const needed: Array<keyof Readiness["capabilities"]> = [];
      if (this.needs.requireMultiTurn) needed.push("multiTurn");
      if (this.tools !== undefined) needed.push("toolPolicy");
      needed.push("wireEvidence", "credentials");
      const reasons = needed
        .map((name) => [name, readiness.capabilities[name]] as const)
        .filter(
          ([, capability]) =>
            !capability || (capability.status !== "ready" && capability.status !== "degraded"),
        )
        .map(
          ([name, capability]) =>
            `${String(name)}: ${capability?.status ?? "unsupported"}${capability?.reason ? ` (${capability.reason})` : ""}`,
        );
      if (reasons.length > 0) throw new HarnessNotReady(this.agent.spec.harness, reasons);

      const { capture, servers } = await this.services.capture({
        servers: this.servers,
        ...(this.tools !== undefined ? { tools: this.tools } : {}),
      });
      this.capture = capture;
      if (this.finishing) {
        await capture.close();
        this.stopIfClosedWhileOpening();
      }
      const env = childEnvironment();
      for (const [child, parent] of Object.entries(this.agent.spec.credentialEnv)) {
        const value = this.services.parentEnv[parent];
        if (value !== undefined) env[child] = value;
      }
      const opening = this.agent.harness.open({
        model: this.agent.spec.model,
        selection: this.agent.spec,
        config: this.services.config,
        servers,
        toolPolicy: this.policy,
        workspace: await this.services.tempDir("m3-workspace-"),
        env,
        credentials: Object.keys(this.agent.spec.credentialEnv),
        ...(this.agent.spec.provider ? { provider: this.agent.spec.provider } : {}),
        signal: this.shutdown.signal,
        tempDir: (prefix) => this.services.tempDir(prefix),
        spawn: (launch) => this.services.spawn(launch),
        record: (event) => capture.recordEvent(event.kind, event.detail),
      });
      const timer = sleep(this.timeoutMs).then(() => "timeout" as const);
      const first = await Promise.race([opening, timer]);
      if (first === "timeout") {
        this.shutdown.abort();
        void opening.then((late) => late.close()).catch(() => undefined);
        throw new M3Error(
          `The harness did not open a session within ${this.timeoutMs} ms (the session's timeout).`,
        );
      }
      if (this.finishing) {
        await first.close().catch(() => undefined);
        this.stopIfClosedWhileOpening();
      }
      this.harnessSession = first;
      this.state = Lifecycle.IDLE;
      return this;
    } catch (error) {
      if (this.finishing) throw error; // closed meanwhile: the session is already finished
      const failure = this.withServerStderr(error);
      this.error = failure instanceof Error ? failure.message : String(failure);
      await this.finish(ExecutionOutcome.FAILED);
      throw failure;
    }
  }

  /**
   * Sends one user turn and resolves with its result when the turn is over. A failed turn
   * is a result, not an exception; a turn past its timeout ends the session `timed_out`.
   *
   * @throws {@link SessionBusy} while another turn runs; {@link SessionClosed} once the
   * session is closing or finished; `KitClosed` after the kit closed.
   */
  async send(text: string, options: SendOptions = {}): Promise<TurnResult> {
    this.services.assertOpen("session.send()");
    if (typeof text !== "string")
      throw new M3Error(`send() needs the prompt as a string, got ${typeof text}.`);
    if (this.running) throw new SessionBusy(this.running.number);
    if (this.state !== Lifecycle.IDLE || !this.harnessSession || !this.capture) {
      throw new SessionClosed(
        "session.send()",
        this.state === Lifecycle.CREATED ? "not open yet (call open() first)" : this.state,
      );
    }
    const timeoutMs = positiveMs(options.timeout, "timeout") ?? this.timeoutMs;
    const harness = this.harnessSession;
    const capture = this.capture;
    const number = this.turns.length + 1;
    const turnId = `${this.executionId}/turn-${number}`;
    const createdAt = monotonicNow();
    const controller = new AbortController();
    let cancel: (reason: "cancelled") => void = () => undefined;
    const cancelled = new Promise<"cancelled">((resolve) => (cancel = resolve));
    let turnDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (turnDone = resolve));
    this.running = { number, cancel, done };
    this.state = Lifecycle.RUNNING_TURN;
    capture.beginTurn(turnId);

    type Settled = { kind: "turn"; turn: AdapterTurn } | { kind: "error"; error: unknown };
    // Through a promise, so an adapter that throws synchronously cannot wedge the session.
    const adapter: Promise<Settled> = Promise.resolve()
      .then(() => harness.send({ text, turnId, timeoutMs, signal: controller.signal }))
      .then(
        (turn): Settled => ({ kind: "turn", turn }),
        (error: unknown): Settled => ({ kind: "error", error }),
      );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">(
      (resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)),
    );
    const first = await Promise.race([adapter, timedOut, cancelled]);
    clearTimeout(timer);

    let outcome: TurnOutcome;
    let turn: AdapterTurn | undefined;
    let error: string | null = null;
    let endSession: ExecutionOutcome | null = null;
    if (first === "timeout" || first === "cancelled") {
      controller.abort(first);
      // Bounded: an adapter whose interrupt never returns must not hold the session.
      await Promise.race([
        Promise.resolve()
          .then(() => harness.interrupt?.())
          .catch(() => undefined),
        sleep(INTERRUPT_GRACE_MS),
      ]);
      const late = await Promise.race([adapter, sleep(INTERRUPT_GRACE_MS)]);
      if (late !== "grace" && late.kind === "turn") turn = late.turn;
      outcome = first === "timeout" ? "timed_out" : "cancelled";
      error =
        first === "timeout"
          ? `The turn did not finish within ${timeoutMs} ms; the harness was interrupted and the session ended timed_out.`
          : "The turn was cancelled by the test.";
      endSession = first === "timeout" ? ExecutionOutcome.TIMED_OUT : ExecutionOutcome.CANCELLED;
    } else if (first.kind === "error") {
      const health = harness.health();
      const message = first.error instanceof Error ? first.error.message : String(first.error);
      outcome = "failed";
      error = health.alive
        ? `The harness failed the turn: ${message}`
        : `The harness died during the turn (${health.exit ?? "exited"}): ${message}` +
          (health.stderrTail ? `\n--- harness stderr (last lines) ---\n${health.stderrTail}` : "");
      if (!health.alive) endSession = ExecutionOutcome.FAILED;
    } else {
      turn = first.turn;
      outcome = turn.outcome;
      error = turn.error;
      const health = harness.health();
      if (!health.alive) {
        outcome = "failed";
        error =
          `The harness died during the turn (${health.exit ?? "exited"})` +
          (turn.error ? `: ${turn.error}` : "") +
          (health.stderrTail ? `\n--- harness stderr (last lines) ---\n${health.stderrTail}` : "");
        endSession = ExecutionOutcome.FAILED;
      }
    }

    await capture.endTurn();
    const observed = capture.trace; // one copy of the trace per turn
    const wire = observed.toolCalls.filter((call) => call.turnId === turnId);
    const toolCalls = correlateTurn(
      wire,
      turn?.toolCalls ?? [],
      turnId,
      () => `reported-${++this.reportedIds}`,
    );
    const violations = toolCalls.filter(
      (call) =>
        call.reported !== undefined &&
        !isToolAllowed(this.policy, call.server, call.tool) &&
        (call.reported.status === "success" || call.reported.status === "tool_error"),
    );
    if (violations.length > 0 && outcome === "completed") {
      outcome = "failed";
      error = `Tool policy violation: the harness reports calling ${violations
        .map((call) => `${call.server}:${call.tool}`)
        .join(", ")}, which the session's allow-list does not allow.`;
    }
    const result: TurnResult = {
      snapshot: {
        turnId,
        sessionId: harness.id,
        number,
        lifecycle: "finished",
        outcome,
        createdAt,
        finishedAt: monotonicNow(),
      },
      prompt: text,
      response: turn?.response ?? null,
      error,
      toolCalls,
      events: turn?.events ?? [],
      gaps: observed.gaps,
    };
    this.turns.push(result);
    this.running = undefined;
    turnDone();
    if (endSession) {
      this.error = error;
      this.state = Lifecycle.CLOSING;
      await this.finish(endSession);
    } else {
      this.state = Lifecycle.IDLE;
    }
    return result;
  }

  /** Cancels the running turn (if any) and ends the session `cancelled`. */
  async cancel(): Promise<void> {
    if (this.running) {
      this.running.cancel("cancelled");
      await this.waitForTurn();
      // The turn may have ended on its own while it was being wrapped up: cancel the session.
      if (this.finishing) return this.finishing;
    }
    if (this.state === Lifecycle.FINISHED || this.finishing || this.closing) return;
    this.error = "The session was cancelled by the test.";
    this.state = Lifecycle.CLOSING;
    await this.finish(ExecutionOutcome.CANCELLED);
  }

  /**
   * Closes the harness and finalizes the trace. Idempotent. Called by `await using` and by
   * the kit when it closes. A turn still running is cancelled first.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.running) {
        this.running.cancel("cancelled");
        await this.waitForTurn();
      }
      if (this.finishing) return this.finishing;
      const opening = this.state === Lifecycle.STARTING;
      this.state = Lifecycle.CLOSING;
      if (opening) this.error = "The session was closed while it was opening.";
      await this.finish(opening ? ExecutionOutcome.CANCELLED : this.derivedOutcome());
    })();
    return this.closing;
  }

  /** Same as {@link AgentSession.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Runs `body` with the open session and closes it afterwards, whatever happens.
   *
   * @example
   * ```ts
   * const result = await agent.session({ server }).use(async (open) => { await open.send("Hi"); });
   * ```
   */
  async use(body: (session: this) => Promise<void>): Promise<ExecutionResult> {
    await this.open();
    try {
      await body(this);
    } finally {
      await this.close();
    }
    return this.result;
  }

  /** Throws when close() or cancel() ended the session while open() was still starting it. */
  private stopIfClosedWhileOpening(): void {
    if (this.finishing) {
      throw new SessionClosed(
        "session.open()",
        "closed while it was opening (close() or cancel() came first)",
      );
    }
  }

  /**
   * A harness that failed to start because a server did not start usually cannot say why;
   * the relay recorded the server's own stderr, so the error carries it.
   */
  private withServerStderr(error: unknown): unknown {
    if (!(error instanceof HarnessStartError) || !this.capture) return error;
    const stderr = new Map<string, string>();
    for (const event of this.capture.trace.events) {
      if (event.kind === "stderr")
        stderr.set(event.server, (stderr.get(event.server) ?? "") + event.detail);
    }
    if (stderr.size === 0) return error;
    const sections = [...stderr].map(
      ([server, text]) =>
        `--- server "${server}" stderr (last lines) ---\n${text.trimEnd().split("\n").slice(-20).join("\n")}`,
    );
    const prefix = `Harness "${error.harness}" could not open a session: `;
    const message = error.message.startsWith(prefix)
      ? error.message.slice(prefix.length)
      : error.message;
    return new HarnessStartError(error.harness, `${message}\n${sections.join("\n")}`, {
      stderrTail: error.stderrTail,
      cause: error,
    });
  }

  private async waitForTurn(): Promise<void> {
    await this.running?.done;
  }

  private derivedOutcome(): ExecutionOutcome {
    if (this.turns.some((turn) => turn.snapshot.outcome === "failed")) {
      const failed = this.turns.filter((turn) => turn.snapshot.outcome === "failed");
      this.error ??= failed
        .map((turn) => `turn ${turn.snapshot.number} failed: ${turn.error ?? "no error given"}`)
        .join("\n");
      return ExecutionOutcome.FAILED;
    }
    const outcomes = this.turns.map((turn) => turn.snapshot.outcome);
    if (outcomes.includes("timed_out")) return ExecutionOutcome.TIMED_OUT;
    if (outcomes.includes("cancelled")) return ExecutionOutcome.CANCELLED;
    if (outcomes.includes("interrupted")) return ExecutionOutcome.INTERRUPTED;
    return ExecutionOutcome.COMPLETED;
  }

  /** Ends the session once, whoever asks first (a turn's timeout, cancel(), close()). */
  private finish(outcome: ExecutionOutcome): Promise<void> {
    this.finishing ??= this.finishOnce(outcome);
    return this.finishing;
  }

  private async finishOnce(outcome: ExecutionOutcome): Promise<void> {
    this.shutdown.abort();
    const problems: string[] = [];
    if (this.capture) {
      // Whatever the harness says from here on belongs to no turn: let it flush first.
      await this.capture.flush(1000);
      this.capture.beginShutdown();
    }
    if (this.harnessSession) {
      await this.harnessSession
        .close()
        .catch((error: unknown) => problems.push(`closing the harness: ${String(error)}`));
    }
    if (this.capture) {
      await this.capture.flush(1000);
      await this.capture
        .close()
        .catch((error: unknown) => problems.push(`closing the capture: ${String(error)}`));
    }
    if (problems.length > 0) this.error = [this.error, ...problems].filter(Boolean).join("\n");
    this.finalTrace = this.buildTrace();
    this.outcome = outcome;
    this.finishedAt = monotonicNow();
    this.state = Lifecycle.FINISHED;
    this.release?.();
    const result = this.snapshotResult();
    notifyObservers((observer) => observer.executionFinished?.(result));
  }

  private buildTrace(): Trace {
    const wire = this.capture?.trace ?? { messages: [], toolCalls: [], events: [], gaps: [] };
    const inTurns = new Set(this.turns.map((turn) => turn.snapshot.turnId));
    const outside = wire.toolCalls.filter(
      (call) => call.turnId === null || !inTurns.has(call.turnId),
    );
    const calls: ToolCall[] = [...outside, ...this.turns.flatMap((turn) => turn.toolCalls)];
    return { ...wire, toolCalls: calls };
  }

  private snapshotResult(): ExecutionResult {
    const trace = this.finalTrace ?? this.buildTrace();
    return {
      snapshot: {
        executionId: this.executionId,
        sessionId: this.sessionId,
        lifecycle: this.state,
        outcome: this.outcome,
        toolCallCount: trace.toolCalls.length,
        agent: {
          name: this.agent.spec.name,
          harness: this.agent.spec.harness,
          model: this.agent.spec.model,
          version: this.readiness?.harness.version ?? null,
        },
        createdAt: this.createdAt,
        finishedAt: this.finishedAt,
      },
      turns: this.turns.slice(),
      trace,
      error: this.error,
    };
  }
}
