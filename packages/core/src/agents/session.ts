import { randomUUID } from "node:crypto";
import { monotonicNow } from "../evidence/clock.js";
import type { Trace } from "../evidence/trace.js";
import { traceVerdicts } from "../evidence/trace-verdicts.js";
import {
  InvalidArgument,
  SessionBusy,
  SessionClosed,
  SessionStillOpen,
  resultError,
  toResultError,
  type ResultError,
} from "../errors.js";
import {
  HarnessStartError,
  type AgentReportedUsage,
  type HarnessSession,
  type Readiness,
} from "../harness/contract.js";
import type { SessionProgress } from "../runtime/runtime.js";
import type { WireCapture } from "../wire/capture.js";
import { buildLaunch, openWithin, withServerStderr } from "./harness-launch.js";
import { ExecutionOutcome, Lifecycle } from "../evidence/outcomes.js";
import { assertPolicyMatchesCatalogs } from "./policy-catalog.js";
import { assertReadyFor } from "./readiness-gate.js";
import { PlanResponder } from "./session-elicitation.js";
import type { ExecutionResult, TurnResult } from "../evidence/results.js";
import type { AgentServices, SessionAgent } from "./services.js";
import {
  resolveSendOptions,
  resolveSessionOptions,
  type SendOptions,
  type SessionOptions,
  type SessionSpec,
} from "./session-spec.js";
import { buildTurnResult, outcomeOfTurns, sessionTrace } from "./turn-result.js";
import { runTurn, type RunningTurn } from "./turn-runner.js";
import { bindWorkspace } from "../servers/spec.js";
import type { WorkspaceResult } from "../workspace/result.js";
import {
  FAILED_START_SETTLE_MS,
  SERVER_SETTLE_MS,
  assertServersStarted,
  serversSettled,
} from "./server-start.js";
import { Workspace, readOnlyViolation } from "../workspace/workspace.js";
import type { ProviderTap, TapAttachment } from "../provider-tap/tap.js";
import { agentReportedUsage, sumUsage, usageOf } from "../provider-tap/usage.js";
import type { ModelRequest, TokenUsage } from "../provider-tap/records.js";
import { isUnavailable, unavailable, type Unavailable } from "../evidence/unavailable.js";

/**
 * One conversation with an agent across several turns, with the wire evidence of every
 * turn. Lifecycle: `created → starting → idle ⇄ running_turn → closing → finished`.
 *
 * This class is the state machine only: options are resolved by `session-spec`, readiness
 * is checked by `readiness-gate`, the harness is launched by `harness-launch`, a turn is
 * run by `turn-runner` and its result built by `turn-result`.
 *
 * `open()` returns the session itself, disposable with `await using`; the
 * {@link AgentSession.result} is final once the session closed.
 */
export class AgentSession implements AsyncDisposable {
  /** Unique id of this execution. */
  readonly executionId = `exec-${randomUUID()}`;
  private readonly spec: SessionSpec;
  private state: Lifecycle = Lifecycle.CREATED;
  private outcome: ExecutionOutcome | null = null;
  private error: ResultError | null = null;
  private readonly createdAt = monotonicNow();
  private finishedAt: number | null = null;
  private readonly turns: TurnResult[] = [];
  private harnessSession: HarnessSession | undefined;
  private capture: WireCapture | undefined;
  private workspace: Workspace | undefined;
  private workspaceResult: WorkspaceResult | undefined;
  private tap: ProviderTap | undefined;
  private tapShare: TapAttachment | undefined;
  private readiness: Readiness | undefined;
  private running: RunningTurn | undefined;
  private closing: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private readonly shutdown = new AbortController();
  private finalTrace: Trace | undefined;
  private reportedIds = 0;
  private finishing: Promise<void> | undefined;
  private responder: PlanResponder | undefined;

  /** @internal Made by `agent.session()` and `agent.run()`. */
  constructor(
    private readonly agent: SessionAgent,
    options: SessionOptions,
    private readonly services: AgentServices,
    private readonly needs: { requireMultiTurn: boolean },
  ) {
    this.spec = resolveSessionOptions(options, services.cwd);
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
      this.readiness = await this.agent.readiness();
      this.stopIfClosedWhileOpening();
      assertReadyFor(this.agent.spec.harness, this.readiness, {
        multiTurn: this.needs.requireMultiTurn,
        toolPolicy: this.spec.tools !== undefined,
        elicitation: this.spec.elicitation !== undefined,
      });
      // The agent's working directory first: a server with cwd "workspace" starts in it.
      const workspace = this.spec.workspace
        ? (this.workspace = await Workspace.create(this.spec.workspace, (prefix) =>
            this.services.tempDir(prefix),
          )).path
        : await this.services.tempDir("m3-workspace-");
      this.stopIfClosedWhileOpening();
      const { capture, servers } = await this.services.capture(
        bindWorkspace(this.spec.servers, workspace),
        this.spec.policy,
      );
      this.capture = capture;
      capture.watchCalls((call, phase) =>
        this.services.runtime.notify((observer) =>
          observer.toolCallSeen?.({
            ...this.progressOf(this.running?.number ?? null),
            call,
            phase,
          }),
        ),
      );
      if (this.finishing) {
        await capture.close();
        this.stopIfClosedWhileOpening();
      }
      // The model side is evidence too: the harness talks to its provider through a tap.
      const upstream = this.agent.spec.provider;
      if (upstream) {
        this.tap = await this.services.runtime.providerTap(upstream);
        this.tapShare = this.tap.attach();
      }
      if (this.finishing) {
        await this.tapShare?.detach();
        this.stopIfClosedWhileOpening();
      }
      const launch = await buildLaunch(this.agent, this.services, {
        servers,
        policy: this.spec.policy,
        capture,
        signal: this.shutdown.signal,
        workspace,
        ...(this.spec.workspace ? { workspaceKind: this.spec.workspace.kind } : {}),
        ...(this.spec.workspace ? { workspaceKind: this.spec.workspace.kind } : {}),
        ...(this.tap ? { provider: this.tap.provider } : {}),
      });
      const plan = this.spec.elicitation;
      this.responder = plan
        ? new PlanResponder(plan, (detail) => capture.recordEvent("approval", detail))
        : undefined;
      const launched = this.responder ? { ...launch, elicitation: this.responder } : launch;
      const opened = await openWithin(
        Promise.resolve().then(() => this.agent.harness.open(launched)),
        this.spec.timeoutMs,
      ).catch((error: unknown) => {
        this.shutdown.abort();
        throw error;
      });
      if (this.finishing) {
        await opened.close().catch(() => undefined);
        this.stopIfClosedWhileOpening();
      }
      this.harnessSession = opened;
      // Servers ready before the first turn are part of the contract: one that died while
      // the agent started fails the session here, even where the agent went on without it.
      await serversSettled(
        () => capture.trace,
        () => capture.flush(1000),
        SERVER_SETTLE_MS,
      );
      assertServersStarted(this.agent.spec.harness, capture.trace);
      // The agent listed each server's tools while it opened: an allow-list entry naming a
      // tool a server does not have would otherwise just leave the agent without it.
      if (this.spec.tools !== undefined)
        assertPolicyMatchesCatalogs(this.spec.policy, capture.trace);
      this.state = Lifecycle.IDLE;
      return this;
    } catch (error) {
      // Closed meanwhile: the session is already finished, and whatever the harness threw
      // while being torn down is a consequence, not the cause.
      if (this.finishing) {
        if (error instanceof SessionClosed) throw error;
        throw new SessionClosed(
          "session.open()",
          "closed while it was opening (close() or cancel() came first)",
          { cause: error },
        );
      }
      // The agent may report a server's failure before the relay's last frames (the
      // server's stderr, its exit) are read: let the servers settle, briefly, first.
      const capture = this.capture;
      if (error instanceof HarnessStartError && capture)
        await serversSettled(
          () => capture.trace,
          () => capture.flush(500),
          FAILED_START_SETTLE_MS,
        );
      const failure = withServerStderr(error, capture?.trace);
      if (failure instanceof Error) failure.message = this.services.runtime.scrub(failure.message);
      this.error = toResultError(failure, "M3_HARNESS_START");
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
    if (typeof text !== "string") {
      throw new InvalidArgument(`send() needs the prompt as a string, got ${typeof text}.`);
    }
    if (this.running) throw new SessionBusy(this.running.number);
    if (this.state !== Lifecycle.IDLE || !this.harnessSession || !this.capture) {
      throw new SessionClosed(
        "session.send()",
        this.state === Lifecycle.CREATED ? "not open yet (call open() first)" : this.state,
      );
    }
    const timeoutMs = resolveSendOptions(options).timeoutMs ?? this.spec.timeoutMs;
    const harness = this.harnessSession;
    const capture = this.capture;
    const number = this.turns.length + 1;
    const turnId = `${this.executionId}/turn-${number}`;
    const createdAt = monotonicNow();
    let cancel: () => void = () => undefined;
    const cancelled = new Promise<"cancelled">((resolve) => (cancel = () => resolve("cancelled")));
    let turnDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (turnDone = resolve));
    this.running = { number, cancel, done };
    this.state = Lifecycle.RUNNING_TURN;
    this.responder?.startTurn();
    capture.beginTurn(turnId);
    this.tapShare?.beginTurn(turnId);
    this.services.runtime.notify((observer) =>
      observer.turnStarted?.({
        ...this.progressOf(number),
        prompt: this.services.runtime.scrub(text),
      }),
    );

    const ending = await runTurn(harness, { text, turnId, timeoutMs }, cancelled);
    await capture.endTurn();
    const modelSide = this.tapShare ? await this.tapShare.endTurn() : undefined;
    const built = buildTurnResult({
      turnId,
      sessionId: harness.id,
      number,
      prompt: text,
      createdAt,
      finishedAt: monotonicNow(),
      ending,
      observed: capture.trace, // one copy of the trace per turn
      policy: this.spec.policy,
      nextReportedId: () => `reported-${++this.reportedIds}`,
    });
    const result = this.scrubbed({
      ...built,
      ...this.modelEvidence(modelSide?.requests, "turn", modelSide?.shared, [
        this.reportedUsageOf(ending.turn?.usage),
      ]),
    });
    this.turns.push(result);
    this.running = undefined;
    this.services.runtime.notify((observer) =>
      observer.turnFinished?.({ ...this.progressOf(number), result }),
    );
    turnDone();
    if (ending.endSession) {
      this.error = result.error;
      this.state = Lifecycle.CLOSING;
      await this.finish(ending.endSession);
    } else {
      this.state = Lifecycle.IDLE;
    }
    return result;
  }

  /** The usage the agent reported in its own events for a turn, or why there is none. */
  private reportedUsageOf(reported: AgentReportedUsage | undefined): TokenUsage | Unavailable {
    if (reported !== undefined) return agentReportedUsage(reported);
    return unavailable(
      this.agent.harness.reportedUsage === undefined
        ? `the ${this.agent.spec.harness} harness reads no token usage from the agent's own events`
        : `the agent reported no usage for this turn (jest-m3 reads ${this.agent.harness.reportedUsage})`,
    );
  }

  /**
   * The model requests and their usage, or why there are none: the tap's, or where no tap
   * stood in the path, the sum of what the agent reported for each turn (`reported`).
   */
  private modelEvidence(
    requests: readonly ModelRequest[] | undefined,
    scope: "turn" | "session",
    shared = 0,
    reported: readonly (TokenUsage | Unavailable)[] = [],
  ): {
    modelRequests?: readonly ModelRequest[];
    usage: TurnResult["usage"] & object;
    reportedUsage?: TokenUsage | Unavailable;
  } {
    const fromAgent = scope === "turn" ? { reportedUsage: reported[0] } : {};
    if (requests === undefined) {
      const missing = reported.find(isUnavailable);
      const noTap =
        "the session had no explicit model provider (the harness used its own), so no provider tap stood between the agent and its model";
      return {
        ...fromAgent,
        usage:
          reported.length === 0
            ? unavailable(`${noTap}, and no turn ran`)
            : missing !== undefined
              ? unavailable(`${noTap}; ${missing.reason}`)
              : sumUsage(reported as TokenUsage[]),
      };
    }
    return {
      ...fromAgent,
      modelRequests: requests,
      usage:
        shared > 0
          ? unavailable(
              `${shared} model request(s) arrived while another session sharing this provider ran a turn, so they belong to neither (run those sessions one after the other)`,
            )
          : usageOf(requests, `no model request crossed the provider tap during this ${scope}`),
    };
  }

  private progressOf(turn: number | null): SessionProgress {
    return { executionId: this.executionId, agent: this.agent.spec.name, turn };
  }

  /** Cancels the running turn (if any) and ends the session `cancelled`. */
  async cancel(): Promise<void> {
    if (this.running) {
      this.running.cancel();
      await this.running?.done;
      // The turn may have ended on its own while it was being wrapped up: cancel the session.
      if (this.finishing) return this.finishing;
    }
    if (this.state === Lifecycle.FINISHED || this.finishing || this.closing) return;
    this.error = resultError("M3_SESSION_CANCELLED", "The session was cancelled by the test.");
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
        this.running.cancel();
        await this.running?.done;
      }
      if (this.finishing) return this.finishing;
      const opening = this.state === Lifecycle.STARTING;
      this.state = Lifecycle.CLOSING;
      if (opening) {
        this.error = resultError(
          "M3_SESSION_CANCELLED",
          "The session was closed while it was opening.",
        );
        return this.finish(ExecutionOutcome.CANCELLED);
      }
      const { outcome, error } = outcomeOfTurns(this.turns);
      this.error ??= error;
      return this.finish(outcome);
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

  /**
   * A turn result with the secret values the kit handed out scrubbed from the texts a
   * harness or provider may echo them into (an error quoting a key, a reply, the harness's
   * raw events that carry that error as it came).
   */
  private scrubbed(result: TurnResult): TurnResult {
    const scrub = (text: string) => this.services.runtime.scrub(text);
    return {
      ...result,
      prompt: scrub(result.prompt),
      response: result.response && { text: scrub(result.response.text) },
      error: result.error && { ...result.error, message: scrub(result.error.message) },
      events: this.services.runtime.scrubValue(result.events),
      ...(result.modelRequests
        ? { modelRequests: this.services.runtime.scrubValue(result.modelRequests) }
        : {}),
    };
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

  /** Ends the session once, whoever asks first (a turn's timeout, cancel(), close()). */
  private finish(outcome: ExecutionOutcome): Promise<void> {
    this.finishing ??= this.finishOnce(outcome);
    return this.finishing;
  }

  private async finishOnce(ending: ExecutionOutcome): Promise<void> {
    let outcome = ending;
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
    await this.tapShare?.detach();
    if (this.capture) {
      await this.capture.flush(1000);
      await this.capture
        .close()
        .catch((error: unknown) => problems.push(`closing the capture: ${String(error)}`));
    }
    if (this.workspace) {
      // After the harness and the servers stopped: every write is on disk by now.
      // A file the server or agent wrote may quote a secret the kit handed out.
      const workspace = this.services.runtime.scrubValue(await this.workspace.finish());
      this.workspaceResult = workspace;
      if (workspace.error) problems.push(`the workspace: ${workspace.error}`);
      if (workspace.kind === "readOnly" && workspace.changes.length > 0) {
        outcome = ExecutionOutcome.FAILED;
        const message = [readOnlyViolation(workspace.changes), this.error?.message]
          .filter(Boolean)
          .join("\n");
        this.error = resultError("M3_WORKSPACE_WRITTEN", message, {
          details: { paths: workspace.changes.map((change) => change.path) },
        });
      }
    }
    if (this.error)
      this.error = { ...this.error, message: this.services.runtime.scrub(this.error.message) };
    if (problems.length > 0) {
      const message = [this.error?.message, ...problems].filter(Boolean).join("\n");
      this.error = this.error
        ? { ...this.error, message }
        : resultError("M3_HARNESS_CLOSE", message);
    }
    const trace = sessionTrace(this.capture?.trace, this.turns);
    // What the harness printed (its stderr) may quote a key as a provider sent it back.
    this.finalTrace = { ...trace, events: this.services.runtime.scrubValue(trace.events) };
    this.outcome = outcome;
    this.finishedAt = monotonicNow();
    this.state = Lifecycle.FINISHED;
    this.release?.();
    const result = this.snapshotResult();
    this.services.runtime.notify((observer) => observer.executionFinished?.(result));
  }

  private snapshotResult(): ExecutionResult {
    const trace = this.finalTrace ?? sessionTrace(this.capture?.trace, this.turns);
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
        provider: this.agent.spec.provider ?? null,
        createdAt: this.createdAt,
        finishedAt: this.finishedAt,
      },
      turns: this.turns.slice(),
      // Verdicts join the trace live: a judge asked after close adds to every result's list.
      trace: { ...trace, verdicts: traceVerdicts(this.executionId) },
      error: this.error,
      ...(this.workspaceResult ? { workspace: this.workspaceResult } : {}),
      ...this.modelEvidence(
        this.tapShare && this.services.runtime.scrubValue(this.tapShare.requests),
        "session",
        0,
        this.turns.map(
          (turn) => turn.reportedUsage ?? unavailable("the turn has no reported usage"),
        ),
      ),
    };
  }
}
