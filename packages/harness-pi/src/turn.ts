import {
  isToolAllowed,
  monotonicNow,
  type AdapterTurn,
  type AdapterTurnOutcome,
  type ToolPolicy,
} from "@jest-m3/core/harness";
import { unfinishedCall, type SlotTurn } from "@jest-m3/core/adapter-kit";
import type {
  AgentEnd,
  AgentSettled,
  ContentPart,
  PiEvent,
  PiMessage,
  ToolExecutionEnd,
  ToolExecutionStart,
} from "./protocol.js";
import {
  mcpToolName,
  reportedToolCall,
  type McpToolName,
  type ObservedCall,
} from "./reported-calls.js";

/** Streaming deltas: many per reply, nothing a transcript needs that `message_end` lacks. */
const SKIPPED_EVENTS = new Set(["message_update", "tool_execution_update"]);

function textOf(content: PiMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .filter((part): part is Extract<ContentPart, { type: "text" }> => part.type === "text")
    .map((part) => part.text)
    .join("");
}

/**
 * One Pi turn: the events after a `prompt`, until `agent_settled` (Pi will not go on by
 * itself: no retry, compaction or queued message left). The reply is the text of the last
 * assistant message of the last `agent_end`; its `stopReason` says how the turn ended
 * (`error` with the provider's words, `aborted` after an abort).
 */
export class PiTurn implements SlotTurn {
  /** Resolves once, when the turn is over. */
  readonly done: Promise<AdapterTurn>;
  private readonly events: unknown[] = [];
  private readonly calls = new Map<string, ObservedCall>();
  private lastEnd: AgentEnd | undefined;
  private finished = false;
  private resolve: (turn: AdapterTurn) => void = () => undefined;

  /**
   * @param names - The bridge's tool names (name → server and tool).
   * @param interruptRequested - Whether the adapter asked Pi to abort this turn.
   */
  constructor(
    private readonly servers: readonly string[],
    private readonly names: ReadonlyMap<string, McpToolName>,
    private readonly policy: ToolPolicy,
    private readonly interruptRequested: () => boolean,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }

  /** True once the turn has ended, one way or another. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Takes one event of Pi's stream. */
  accept(event: PiEvent): void {
    if (this.finished) return;
    if (!SKIPPED_EVENTS.has(event.type)) this.events.push(event);
    switch (event.type) {
      case "tool_execution_start":
        this.onStart(event as ToolExecutionStart);
        return;
      case "tool_execution_end":
        this.onEnd(event as ToolExecutionEnd);
        return;
      case "agent_end":
        this.lastEnd = event as AgentEnd;
        return;
      case "agent_settled":
        this.onSettled(event as AgentSettled);
        return;
    }
  }

  /**
   * Ends the turn now with `outcome` (an abort Pi did not confirm in time, a dead Pi).
   * Calls still running are reported `incomplete` (a failed turn) or `cancelled`.
   */
  finish(outcome: AdapterTurnOutcome, error: string | null): void {
    if (this.finished) return;
    this.finished = true;
    const unfinished = unfinishedCall({ agent: "Pi" }, outcome, error);
    const toolCalls = [...this.calls.values()].map((call) =>
      reportedToolCall(
        call,
        isToolAllowed(this.policy, call.name.server, call.name.tool),
        unfinished,
      ),
    );
    const text = this.lastAssistant();
    this.resolve({
      outcome,
      response: text === null ? null : { text },
      error,
      toolCalls,
      events: this.events.slice(),
    });
  }

  /** The last assistant message of this turn: after the turn's prompt (the last user message). */
  private lastAssistantMessage(): PiMessage | undefined {
    const messages = this.lastEnd?.messages ?? [];
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index];
      if (message?.role === "user") return undefined;
      if (message?.role === "assistant") return message;
    }
    return undefined;
  }

  private lastAssistant(): string | null {
    const message = this.lastAssistantMessage();
    if (!message || message.stopReason === "error" || message.stopReason === "aborted") return null;
    const text = textOf(message.content);
    return text === "" ? null : text;
  }

  private onStart(event: ToolExecutionStart): void {
    const name = mcpToolName(event.toolName, this.names, this.servers);
    if (name === undefined) return; // Pi's own tool: not an MCP call
    this.calls.set(event.toolCallId, {
      id: event.toolCallId,
      name,
      args: event.args,
      startedAt: monotonicNow(),
    });
  }

  private onEnd(event: ToolExecutionEnd): void {
    const call = this.calls.get(event.toolCallId);
    if (!call || call.result) return;
    call.result = {
      content: event.result?.content ?? [],
      details: event.result?.details,
      isError: event.isError === true,
      endedAt: monotonicNow(),
    };
  }

  private onSettled(event: AgentSettled): void {
    const last = this.lastAssistantMessage();
    if (event.aborted === true || last?.stopReason === "aborted") {
      const why = last?.errorMessage ?? "the run was aborted";
      this.finish("interrupted", `Pi aborted the turn: ${why}`);
      return;
    }
    if (last?.stopReason === "error") {
      this.finish("failed", last.errorMessage ?? "the model request failed (Pi gave no message)");
      return;
    }
    if (this.interruptRequested() && last === undefined) {
      this.finish("interrupted", "Pi aborted the turn");
      return;
    }
    this.finish("completed", null);
  }
}
