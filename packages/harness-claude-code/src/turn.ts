import {
  isToolAllowed,
  monotonicNow,
  type AdapterTurn,
  type AdapterTurnOutcome,
  type ToolPolicy,
} from "@jest-m3/core/harness";
import { finishedTurn, UsageTally, unfinishedCall } from "@jest-m3/core/adapter-kit";
import type {
  AssistantMessage,
  ContentBlock,
  ResultMessage,
  StreamMessage,
  UserMessage,
} from "./protocol.js";
import { mcpToolName, reportedToolCall, TOOL_SEARCH, type ObservedCall } from "./reported-calls.js";

/** Fields of `system/init` that list Claude Code's own catalog: left out of transcripts. */
const CATALOG_FIELDS = ["slash_commands", "terminal_slash_commands", "skills", "agents", "plugins"];

function slim(message: StreamMessage): unknown {
  if (message.type !== "system" || message.subtype !== "init") return message;
  const copy: Record<string, unknown> = { ...message };
  for (const field of CATALOG_FIELDS) delete copy[field];
  return copy;
}

function blocks(content: string | readonly ContentBlock[]): readonly ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Claude Code's words for a turn that ended in error. */
export function resultErrorText(result: ResultMessage): string {
  if (typeof result.result === "string" && result.result !== "") return result.result;
  if (result.errors && result.errors.length > 0) return result.errors.join("; ");
  return `Claude Code ended the turn with ${result.subtype}${result.terminal_reason ? ` (${result.terminal_reason})` : ""}`;
}

/**
 * Everything one turn produced, from the user message to Claude Code's `result` (or an
 * interrupt, or the process's death): the raw messages, the reported MCP tool calls, the
 * final text and Claude Code's error.
 */
export class TurnCollector {
  /** The turn as the adapter reports it; resolves exactly once. */
  readonly done: Promise<AdapterTurn>;
  /** Set once an interrupt was asked for. */
  interruptRequested = false;
  private readonly events: unknown[] = [];
  private readonly calls = new Map<string, ObservedCall>();
  private readonly denied = new Set<string>();
  private lastText: string | null = null;
  /** Claude Code's own usage, from the turn's result. */
  private readonly usage = new UsageTally();
  private finished = false;
  private resolve: (turn: AdapterTurn) => void = () => undefined;

  constructor(
    private readonly servers: readonly string[],
    private readonly policy: ToolPolicy,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }

  /** True once the turn has ended, one way or another. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Keeps something in the turn's events (a permission decision). */
  note(event: unknown): void {
    if (!this.finished) this.events.push(event);
  }

  /** The adapter denied this call's permission: its failure is a policy denial. */
  deniedCall(toolUseId: string): void {
    this.denied.add(toolUseId);
    const call = this.calls.get(toolUseId);
    if (call) call.deniedByAdapter = true;
  }

  /** Takes one message of the stream. */
  accept(message: StreamMessage): void {
    if (this.finished) return;
    this.events.push(slim(message));
    switch (message.type) {
      case "assistant":
        this.onAssistant(message as AssistantMessage);
        return;
      case "user":
        this.onUser(message as UserMessage);
        return;
      case "result":
        this.readUsage(message as ResultMessage);
        this.onResult(message as ResultMessage);
        return;
    }
  }

  /**
   * Ends the turn now with `outcome` (an interrupt Claude Code did not confirm, the process
   * that died). Calls still running are
   * reported `incomplete` (a failed turn) or `cancelled` (see the kit's `unfinishedCall`).
   */
  finish(outcome: AdapterTurnOutcome, error: string | null): void {
    if (this.finished) return;
    this.finished = true;
    const unfinished = unfinishedCall({ agent: "Claude Code" }, outcome, error);
    const toolCalls = [...this.calls.values()].map((call) =>
      reportedToolCall(
        call,
        isToolAllowed(this.policy, call.name.server, call.name.tool),
        unfinished,
      ),
    );
    const parts = { text: this.lastText, toolCalls, events: this.events, usage: this.usage };
    this.resolve(finishedTurn(outcome, error, parts));
  }

  /** The result's usage: the turn's requests added up; the prompt is its three parts. */
  private readUsage(message: ResultMessage): void {
    const usage = message.usage;
    if (usage?.input_tokens === undefined) return;
    const read = usage.cache_read_input_tokens ?? 0;
    this.usage.add({
      inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + read,
      outputTokens: usage.output_tokens,
      cachedInputTokens: read,
    });
  }

  private onAssistant(message: AssistantMessage): void {
    const texts: string[] = [];
    for (const block of message.message?.content ?? []) {
      if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
      if (block.type !== "tool_use") continue;
      const use = block as Extract<ContentBlock, { type: "tool_use" }>;
      if (use.name === TOOL_SEARCH) continue;
      const meta = message.tool_use_meta?.find((entry) => entry.id === use.id);
      const name = mcpToolName(use.name, this.servers, meta);
      if (name === undefined) continue; // a built-in tool: not an MCP call
      this.calls.set(use.id, {
        id: use.id,
        name,
        input: use.input,
        startedAt: monotonicNow(),
        ...(this.denied.has(use.id) ? { deniedByAdapter: true } : {}),
      });
    }
    if (texts.length > 0 && message.parent_tool_use_id == null) this.lastText = texts.join("");
  }

  private onUser(message: UserMessage): void {
    for (const block of blocks(message.message?.content ?? [])) {
      if (block.type !== "tool_result") continue;
      const result = block as Extract<ContentBlock, { type: "tool_result" }>;
      const call = this.calls.get(result.tool_use_id);
      if (!call || call.result) continue;
      call.result = {
        content: result.content,
        isError: result.is_error === true,
        toolUseResult: message.tool_use_result,
        meta: message.tool_result_meta?.find((entry) => entry.id === result.tool_use_id),
        endedAt: monotonicNow(),
      };
    }
  }

  private onResult(result: ResultMessage): void {
    if (!result.is_error) {
      if (typeof result.result === "string" && result.result !== "") this.lastText = result.result;
      this.finish("completed", null);
      return;
    }
    if (this.interruptRequested) {
      this.finish("interrupted", `Claude Code interrupted the turn: ${resultErrorText(result)}`);
      return;
    }
    const error = resultErrorText(result);
    // Claude Code repeats an API error as a synthetic assistant message: not a reply.
    if (this.lastText === error) this.lastText = null;
    this.finish("failed", error);
  }
}
