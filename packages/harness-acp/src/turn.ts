import { finishedTurn, isJsonObject, UsageTally, unfinishedCall } from "@jest-m3/core/adapter-kit";
import {
  monotonicNow,
  type AdapterTurn,
  type AdapterTurnOutcome,
  type ReportedToolCall,
} from "@jest-m3/core/harness";
import type { SessionNotification, ToolCall, ToolCallUpdate } from "./protocol.js";
import {
  reportedToolCall,
  type AgentToolCall,
  type ObservedCall,
  type ToolIdentity,
} from "./reported-calls.js";

/**
 * Everything one turn produced, from `session/prompt` to its answer (or an interrupt, or
 * the agent's death): the raw updates, the tool calls the agent reported (merged over
 * `tool_call`, `tool_call_update` and permission requests, by `toolCallId`), and the
 * agent's final message: the text of its last message after the last tool call.
 */
export class TurnCollector {
  /** The turn as the adapter reports it; resolves exactly once. */
  readonly done: Promise<AdapterTurn>;
  private readonly events: unknown[] = [];
  private readonly calls = new Map<string, ObservedCall>();
  private readonly segments: string[] = [""];
  private readonly chunkTexts: string[] = [];
  private lastMessageId: string | null | undefined;
  private finished = false;
  private resolve: (turn: AdapterTurn) => void = () => undefined;

  /**
   * @param sessionId - The ACP session; updates of other sessions are ignored.
   * @param agent - The agent's name for messages.
   * @param identify - Maps an agent's call to an MCP server and tool (undefined: not MCP).
   * @param allowed - Whether the session's allow-list allows an MCP tool.
   */
  constructor(
    private readonly sessionId: string,
    private readonly agent: string,
    private readonly identify: (call: AgentToolCall) => ToolIdentity | undefined,
    private readonly allowed: (identity: ToolIdentity) => boolean = () => true,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }

  /** True once the turn has ended, one way or another. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** The text of each `agent_message_chunk` so far, in order. */
  get chunks(): readonly string[] {
    return this.chunkTexts;
  }

  /** Keeps something in the turn's events (a permission decision, a refused request). */
  note(event: unknown): void {
    if (!this.finished) this.events.push(event);
  }

  /**
   * A permission request for a call: the call is known from it (Gemini CLI sends no
   * `tool_call` when it asks), with the arguments it showed and whether it was declined.
   */
  permission(
    toolCall: ToolCallUpdate,
    identity: ToolIdentity | undefined,
    declined: boolean,
    args: Readonly<Record<string, unknown>> | undefined,
  ): void {
    if (this.finished) return;
    const call = this.call(toolCall);
    call.identity ??= identity;
    if (declined) call.declined = true;
    if (args) call.permissionArguments = args;
    this.merge(call, toolCall);
  }

  /** Takes one `session/update`. */
  accept(notification: SessionNotification): void {
    if (this.finished || notification.sessionId !== this.sessionId) return;
    const update = notification.update;
    switch (update.sessionUpdate) {
      case "agent_message_chunk": {
        this.events.push(notification);
        if (update.content.type !== "text") return;
        this.chunkTexts.push(update.content.text);
        const id = update.messageId;
        if (
          id !== undefined &&
          id !== null &&
          this.lastMessageId !== undefined &&
          id !== this.lastMessageId
        ) {
          this.segments.push("");
        }
        if (id !== undefined) this.lastMessageId = id;
        this.segments[this.segments.length - 1] += update.content.text;
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        this.events.push(notification);
        const call = this.call(update);
        this.merge(call, update);
        if (this.segments[this.segments.length - 1] !== "") this.segments.push("");
        return;
      }
      case "agent_thought_chunk":
        return; // streamed reasoning: not part of the transcript
      default:
        this.events.push(notification);
    }
  }

  /**
   * Ends the turn now with `outcome`. Calls still running are reported `incomplete` (a
   * failed turn) or `cancelled`, in every harness's wording.
   */
  finish(outcome: AdapterTurnOutcome, error: string | null): void {
    if (this.finished) return;
    this.finished = true;
    const unfinished = unfinishedCall({ agent: this.agent }, outcome, error, "the end");
    const toolCalls = [...this.calls.values()]
      .map((call) => {
        if (call.identity && !this.allowed(call.identity)) call.outsideAllowList = true;
        return reportedToolCall(call, this.agent, unfinished);
      })
      .filter((call): call is ReportedToolCall => call !== undefined);
    const text = [...this.segments].reverse().find((segment) => segment.trim() !== "") ?? null;
    // ACP reports no token usage: the tally stays empty.
    const parts = { text, toolCalls, events: this.events, usage: new UsageTally() };
    this.resolve(finishedTurn(outcome, error, parts));
  }

  /** The call an update is about; identified from the first update that says enough. */
  private call(update: AgentToolCall): ObservedCall {
    const { toolCallId } = update;
    let call = this.calls.get(toolCallId);
    if (!call) {
      call = { toolCallId, identity: this.identify(update), startedAt: monotonicNow() };
      this.calls.set(toolCallId, call);
    } else if (!call.identity && (update.title || update.kind)) {
      call.identity = this.identify(update);
    }
    return call;
  }

  private merge(call: ObservedCall, update: ToolCall | ToolCallUpdate): void {
    if (update.title) call.title = update.title;
    if (update.status) {
      call.status = update.status;
      if (update.status === "completed" || update.status === "failed")
        call.endedAt = monotonicNow();
    }
    if (
      update.rawInput !== undefined &&
      ((isJsonObject(update.rawInput) && Object.keys(update.rawInput).length > 0) ||
        call.rawInput === undefined)
    ) {
      call.rawInput = update.rawInput;
    }
    if (update.rawOutput !== undefined) call.rawOutput = update.rawOutput;
    if (update.content && update.content.length > 0) call.content = update.content;
  }
}
