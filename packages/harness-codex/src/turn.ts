import { monotonicNow, type AdapterTurn, type AdapterTurnOutcome } from "@jest-m3/core/harness";
import { finishedTurn, UsageTally, unfinishedCall } from "@jest-m3/core/adapter-kit";
import type {
  AgentMessageItem,
  ErrorNotificationParams,
  ItemNotificationParams,
  Json,
  JsonObject,
  McpToolCallItem,
  ServerNotification,
  TurnCompleted,
  TurnError,
} from "./protocol.js";
import { reportedToolCall } from "./reported-calls.js";

/** Streaming fragments: the completed items carry the same text, so transcripts skip these. */
const DELTA = /delta$|Delta$|\/progress$/;

interface ObservedCall {
  item: McpToolCallItem;
  observedStart?: number;
  observedEnd?: number;
}

function field(params: unknown, name: string): Json | undefined {
  return typeof params === "object" && params !== null && !Array.isArray(params)
    ? (params as JsonObject)[name]
    : undefined;
}

function turnIdOf(params: unknown): string | undefined {
  const direct = field(params, "turnId");
  if (typeof direct === "string") return direct;
  const id = field(field(params, "turn"), "id");
  return typeof id === "string" ? id : undefined;
}

/** The HTTP status Codex's error info names (`{ someKind: { httpStatusCode: 500 } }`), if any. */
function httpStatusOf(info: Json | undefined): number | undefined {
  if (typeof info !== "object" || info === null || Array.isArray(info)) return undefined;
  for (const [key, value] of Object.entries(info)) {
    if (key === "httpStatusCode" && typeof value === "number") return value;
    const nested = httpStatusOf(value);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * Codex's words for a turn error: the message, the details when they add something, and what
 * Codex's error info says when the message does not (Codex words a provider's 500 as "high
 * demand", its info says `internalServerError`; a status it names is added as `HTTP nnn`).
 */
export function turnErrorText(error: TurnError): string {
  const details = error.additionalDetails;
  const text =
    details && !error.message.includes(details) ? `${error.message} (${details})` : error.message;
  const info = error.codexErrorInfo;
  if (typeof info === "string" && info !== "" && !text.includes(info)) return `${text} (${info})`;
  const status = httpStatusOf(info);
  return status !== undefined && !text.includes(String(status))
    ? `${text} (HTTP ${status} from the provider)`
    : text;
}

/**
 * Everything one turn produced, from `turn/start` to `turn/completed` (or an interrupt, or
 * the app-server's death): the raw events, the reported tool calls, the final agent message
 * and Codex's error. Notifications that arrive before Codex has named the turn are held and
 * replayed once it has, so none is lost or given to the wrong turn.
 */
export class TurnCollector {
  /** The turn as the adapter reports it; resolves exactly once. */
  readonly done: Promise<AdapterTurn>;
  /** Codex's id for the turn, once `turn/start` answered. */
  codexTurnId: string | undefined;
  /** The `turn/interrupt` request, once sent (at most once per turn). */
  interrupting: Promise<void> | undefined;
  private readonly events: unknown[] = [];
  private readonly held: ServerNotification[] = [];
  private readonly calls = new Map<string, ObservedCall>();
  private readonly declined: { server: string; tool: string }[] = [];
  private lastMessage: string | null = null;
  private lastError: string | null = null;
  /** Codex's own token usage, one `thread/tokenUsage/updated` per model request. */
  private readonly usage = new UsageTally();
  private finished = false;
  private resolve: (turn: AdapterTurn) => void = () => undefined;

  constructor(private readonly threadId: string) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }

  /** True once the turn has ended, one way or another. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Codex named the turn: replay what was held. */
  started(codexTurnId: string): void {
    this.codexTurnId = codexTurnId;
    for (const notification of this.held.splice(0)) this.accept(notification);
  }

  /** Keeps something in the turn's events (an approval decision, a server request). */
  note(event: unknown): void {
    if (!this.finished) this.events.push(event);
  }

  /** The adapter declined the approval of this call: its failure is a policy denial. */
  declinedCall(server: string, tool: string): void {
    this.declined.push({ server, tool });
  }

  /** Takes one notification of the thread. */
  accept(notification: ServerNotification): void {
    if (this.finished) return;
    const { method, params } = notification;
    const threadId = field(params, "threadId");
    if (typeof threadId === "string" && threadId !== this.threadId) return;
    const turnId = turnIdOf(params);
    if (turnId !== undefined) {
      if (this.codexTurnId === undefined) {
        this.held.push(notification);
        return;
      }
      if (turnId !== this.codexTurnId) return; // a late event of an earlier turn
    }
    if (!DELTA.test(method)) this.events.push(notification);
    switch (method) {
      case "item/started":
      case "item/completed":
        this.onItem(method, params as unknown as ItemNotificationParams);
        return;
      case "error": {
        const error = params as unknown as ErrorNotificationParams;
        if (!error.willRetry && error.error) this.lastError = turnErrorText(error.error);
        return;
      }
      case "turn/completed":
        this.onCompleted(params as unknown as TurnCompleted);
        return;
      case "thread/tokenUsage/updated": {
        // `last` is the model request just answered; `total` the thread's so far.
        const last = field(field(params, "tokenUsage"), "last");
        this.usage.add({
          inputTokens: field(last, "inputTokens"),
          outputTokens: field(last, "outputTokens"),
          cachedInputTokens: field(last, "cachedInputTokens"),
          reasoningTokens: field(last, "reasoningOutputTokens"),
        });
        return;
      }
    }
  }

  /**
   * Ends the turn now with `outcome` (an interrupt Codex did not confirm, the process that
   * died). Calls still running are
   * reported `incomplete` (a failed turn) or `cancelled` (see the kit's `unfinishedCall`).
   */
  finish(outcome: AdapterTurnOutcome, error: string | null): void {
    if (this.finished) return;
    this.finished = true;
    const unfinished = unfinishedCall({ agent: "Codex" }, outcome, error, "the end");
    const toolCalls = [...this.calls.values()].map((call) => {
      const index = this.declined.findIndex(
        (entry) => entry.server === call.item.server && entry.tool === call.item.tool,
      );
      const declined = call.item.status === "failed" && index >= 0;
      if (declined) this.declined.splice(index, 1);
      return reportedToolCall(call.item, { ...call, declined, unfinished });
    });
    const parts = { text: this.lastMessage, toolCalls, events: this.events, usage: this.usage };
    this.resolve(finishedTurn(outcome, error, parts));
  }

  private onItem(method: string, params: ItemNotificationParams): void {
    const item = params.item;
    if (item.type === "mcpToolCall") {
      const call = item as McpToolCallItem;
      const known = this.calls.get(call.id);
      const now = monotonicNow();
      // When the adapter saw the call start (its first item) and end (its completed item).
      const seen =
        method === "item/completed" ? { observedEnd: now } : known ? {} : { observedStart: now };
      this.calls.set(call.id, { ...known, item: call, ...seen });
    } else if (item.type === "agentMessage" && method === "item/completed") {
      this.lastMessage = (item as AgentMessageItem).text;
    }
  }

  private onCompleted(params: TurnCompleted): void {
    const { status, error } = params.turn;
    switch (status) {
      case "completed":
        this.finish("completed", null);
        return;
      case "interrupted":
        this.finish("interrupted", error ? turnErrorText(error) : "Codex interrupted the turn.");
        return;
      case "failed":
        this.finish(
          "failed",
          error
            ? turnErrorText(error)
            : (this.lastError ?? "Codex reported the turn failed, without a message."),
        );
        return;
      default:
        return;
    }
  }
}
