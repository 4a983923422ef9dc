import {
  INTERRUPT_GRACE_MS,
  SlotSession,
  TurnSlot,
  type WarmAgentLease,
} from "@jest-m3/core/adapter-kit";
import type {
  AdapterTurn,
  AdapterTurnRequest,
  HarnessLaunch,
  HarnessSession,
} from "@jest-m3/core/harness";
import type { AppServerClient } from "./app-server-client.js";
import { answerRequest, fromPlan } from "./approvals.js";
import { CODEX_NAMES, CodexRpcError } from "./errors.js";
import type { Json, ServerNotification, ServerRequest } from "./protocol.js";
import { TurnCollector } from "./turn.js";

/** How long `close()` waits for Codex to exit after its stdin closed, before signals. */
export const CLOSE_GRACE_MS = 1500;

/**
 * One Codex thread in one `codex app-server`: every `send()` is a `turn/start` on the same
 * thread. Tool approvals are answered from the session's allow-list and recorded.
 */
export class CodexSession extends SlotSession<TurnCollector> implements HarnessSession {
  protected readonly slot: TurnSlot<TurnCollector>;
  private readonly warnings = new Set<string>();
  private readonly stops: (() => void)[] = [];

  /** @internal Made by {@link openCodexSession}. */
  constructor(
    protected readonly client: AppServerClient,
    private readonly launch: HarnessLaunch,
    /** The Codex thread id. */
    readonly id: string,
    /** Set when the app-server is a warm one shared with other sessions' threads. */
    private readonly lease?: WarmAgentLease<AppServerClient>,
  ) {
    super();
    this.slot = new TurnSlot<TurnCollector>({
      names: CODEX_NAMES,
      agent: client.agent,
      // None for a shared app-server: other sessions' lines are in it.
      stderrTail: () => (lease ? "" : client.agent.stderrTail()),
      // interrupt() is `turn/interrupt`; the kit's grace: how long Codex has to confirm it.
      interrupt: (turn) => this.requestInterrupt(turn),
    });
    this.stops.push(
      // On a shared app-server, another thread's notifications are not this session's.
      client.onNotification(
        (notification) => this.onNotification(notification),
        lease ? id : undefined,
      ),
      client.handleRequests((request) => this.onServerRequest(request), lease ? id : undefined),
    );
  }

  /**
   * Sends one user turn (`turn/start` on the thread) and resolves when Codex completes it,
   * when the turn's signal aborts (after `turn/interrupt`, with outcome `interrupted`), or
   * when the app-server dies (outcome `failed`, with its stderr tail).
   */
  send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    // The app-server's exit meanwhile (AppServerExited) fails the turn with its stderr tail.
    return this.slot.run(request, new TurnCollector(this.id), async (turn) => {
      const started = await this.client.call("turn/start", {
        threadId: this.id,
        input: [{ type: "text", text: request.text, text_elements: [] }],
      });
      turn.started(started.turn.id);
      // An interrupt asked before Codex named the turn goes out now.
      if (this.slot.interruptRequested(turn)) void this.requestInterrupt(turn);
    });
  }

  /**
   * Ends the session: closes the app-server's stdin (Codex exits and stops its MCP servers),
   * waits briefly, then stops the process group. On a warm app-server, lets this thread go
   * and stops its MCP servers instead. Idempotent.
   */
  close(): Promise<void> {
    return this.slot.shutdown(async () => {
      const lease = this.lease;
      if (!lease) {
        await this.client.close(CLOSE_GRACE_MS);
        return;
      }
      for (const stop of this.stops.splice(0)) stop();
      // An app-server that no longer answers (hung, stopped) serves no later session; an
      // error answer is still an answer.
      const unsubscribe = () =>
        this.client
          .call("thread/unsubscribe", { threadId: this.id }, { timeoutMs: CLOSE_GRACE_MS })
          .then(
            () => true,
            (error: unknown) => error instanceof CodexRpcError,
          );
      await lease.leaveShared(this.launch.servers, unsubscribe, CLOSE_GRACE_MS);
    });
  }

  /** `turn/interrupt` for `turn`, once; before Codex has named the turn, once it does. */
  private requestInterrupt(turn: TurnCollector): Promise<void> {
    const turnId = turn.codexTurnId;
    if (turnId === undefined) return Promise.resolve();
    turn.interrupting ??= this.client
      .call("turn/interrupt", { threadId: this.id, turnId }, { timeoutMs: INTERRUPT_GRACE_MS })
      .then(
        () => undefined,
        () => undefined,
      );
    return turn.interrupting;
  }

  private onNotification(notification: ServerNotification): void {
    this.slot.current?.accept(notification);
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
    const turn = this.slot.current;
    const planned = fromPlan(this.launch, request);
    if (planned) {
      return planned.then((answer) => {
        turn?.note({ request, answer });
        return answer;
      });
    }
    const answer = answerRequest(this.launch, turn, request);
    turn?.note({ request, answer });
    return answer;
  }
}
