/**
 * The Anthropic Messages API (Claude Code): `POST /v1/messages` (SSE or JSON, `?beta=true`
 * accepted), `POST /v1/messages/count_tokens`, and a `HEAD /` probe. Claude Code names MCP
 * tools `mcp__server__tool`, wraps context in `<system-reminder>` blocks, may send
 * `role: "system"` messages, and may list MCP tools as deferred: they are then loaded with a
 * `ToolSearch` call `select:mcp__server__tool` before they can be called.
 */
import {
  isContextualUserText,
  noTools,
  type NeutralItem,
  type NeutralRequest,
} from "../conversation";
import type { Decision } from "../decision";
import { isPlainObject } from "../script";
import {
  answerUsage,
  CUT_TEXT,
  eventData,
  eventFrame,
  hangingJson,
  json,
  neutralRequest,
  partialJson,
  renderDecision,
  retryHeaders,
  sse,
  streamedCalls,
  textChunks,
  type Dialect,
  type RecordedAnswer,
  type RenderContext,
  type Rendered,
  type Route,
  type SideAnswer,
} from "./dialect";

/** The name of Claude Code's tool search tool. */
const TOOL_SEARCH = "ToolSearch";
const DEFERRED_NAME = /\bmcp__[A-Za-z0-9_-]+?__[A-Za-z0-9_-]+/g;

type Block = Record<string, unknown>;

/** The Anthropic Messages dialect. */
export const anthropicMessages: Dialect = {
  name: "anthropic-messages",
  baseUrl: (origin) => origin,
  routes: ["POST <origin>/v1/messages", "POST <origin>/v1/messages/count_tokens", "HEAD <origin>/"],

  route(method, pathname): Route | null {
    if ((method === "HEAD" || method === "GET") && pathname === "/") {
      return { kind: "side", purpose: "probe", model: null };
    }
    if (method !== "POST") return null;
    if (/^\/v1\/messages\/?$/.test(pathname)) return { kind: "main", stream: null, model: null };
    if (/^\/v1\/messages\/count_tokens\/?$/.test(pathname)) {
      return { kind: "side", purpose: "token_count", model: null };
    }
    return null;
  },

  read(body): NeutralRequest {
    const offered = noTools();
    for (const tool of Array.isArray(body.tools) ? body.tools : []) {
      if (!isPlainObject(tool) || typeof tool.name !== "string") continue;
      if (tool.name === TOOL_SEARCH) {
        offered.search = "select";
        offered.searchTool = TOOL_SEARCH;
      }
      offered.functions.add(tool.name);
    }
    const items: NeutralItem[] = [];
    const context: string[] = [systemText(body.system)];
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isPlainObject(message)) continue;
      const blocks = contentBlocks(message.content);
      if (message.role === "system") {
        context.push(blocks.map(blockText).join("\n"));
        continue;
      }
      if (message.role === "assistant") {
        for (const block of blocks) {
          if (block.type === "text" && typeof block.text === "string") {
            items.push({ type: "assistant", text: block.text });
          } else if (block.type === "tool_use") {
            const callId = String(block.id ?? "");
            const input = isPlainObject(block.input) ? block.input : {};
            if (block.name === TOOL_SEARCH) {
              items.push({ type: "search", callId, query: String(input.query ?? "") });
            } else {
              items.push({
                type: "call",
                callId,
                namespace: null,
                name: String(block.name ?? ""),
                arguments: input,
              });
            }
          }
        }
        continue;
      }
      const typed: string[] = [];
      for (const block of blocks) {
        if (block.type === "tool_result") {
          items.push({
            type: "result",
            callId: String(block.tool_use_id ?? ""),
            output: resultText(block.content),
          });
        } else if (block.type === "text" && typeof block.text === "string") {
          if (isContextualUserText(block.text) || /^\[Request interrupted/.test(block.text)) {
            context.push(block.text);
          } else typed.push(block.text);
        }
      }
      if (typed.length > 0) items.push({ type: "user", text: typed.join("\n") });
    }
    for (const text of context) {
      for (const name of text.match(DEFERRED_NAME) ?? []) {
        if (!offered.functions.has(name)) offered.deferred.add(name);
      }
    }
    const metadata = isPlainObject(body.metadata) ? body.metadata : {};
    const conversationKey = typeof metadata.user_id === "string" ? metadata.user_id : "default";
    return neutralRequest("anthropic-messages", body, { items, offered, conversationKey });
  },

  render(decision: Decision, context: RenderContext): Rendered {
    const message = new MessageBuilder(context);
    return renderDecision(
      decision,
      {
        calls(calls) {
          for (const call of calls) message.toolUse(call.callId, call.name, call.arguments);
          return message.finish("tool_use");
        },
        toolSearch(callId, query) {
          message.toolUse(callId, context.request.offered.searchTool ?? TOOL_SEARCH, { query });
          return message.finish("tool_use");
        },
        text(text) {
          message.text(text);
          return message.finish("end_turn");
        },
        fail(failure) {
          if (!context.stream) return anthropicMessages.error(500, failure, "api_error");
          return message.fail(failure);
        },
        cut: () => message.cut(),
        hang: () => message.hang(),
      },
      "Anthropic Messages",
    );
  },

  renderSide(answer: SideAnswer, context: RenderContext): Rendered {
    if (answer.purpose === "probe") {
      return { status: 200, headers: { "content-type": "text/plain" }, chunks: [], then: "end" };
    }
    if (answer.purpose === "token_count") {
      return json(200, { input_tokens: context.inputTokens });
    }
    const message = new MessageBuilder(context);
    message.text(answer.text);
    return message.finish("end_turn");
  },

  error(status, message, code): Rendered {
    return json(
      status,
      { type: "error", error: { type: errorType(status, code), message } },
      retryHeaders(status),
    );
  },

  isTerminal(event) {
    const type = event.event ?? eventData(event).type;
    return type === "message_stop" || type === "error";
  },

  readAnswer(events, body): RecordedAnswer {
    const answer: RecordedAnswer = { text: "", calls: [] };
    if (events === undefined) {
      const content = isPlainObject(body) && Array.isArray(body.content) ? body.content : [];
      for (const block of content.filter(isPlainObject)) {
        if (block.type === "text") answer.text += blockText(block);
        if (block.type === "tool_use") {
          answer.calls.push({ namespace: null, name: String(block.name), arguments: block.input });
        }
      }
      return answer;
    }
    const inputs = new Map<number, { name: string; json: string }>();
    for (const event of events) {
      const data = eventData(event);
      const index = Number(data.index);
      if (data.type === "content_block_start" && isPlainObject(data.content_block)) {
        if (data.content_block.type === "tool_use") {
          inputs.set(index, { name: String(data.content_block.name), json: "" });
        }
      } else if (data.type === "content_block_delta" && isPlainObject(data.delta)) {
        if (data.delta.type === "text_delta") answer.text += String(data.delta.text ?? "");
        const input = inputs.get(index);
        if (data.delta.type === "input_json_delta" && input !== undefined) {
          input.json += String(data.delta.partial_json ?? "");
        }
      }
    }
    answer.calls.push(
      ...streamedCalls([...inputs.values()].map(({ name, json: args }) => ({ name, args }))),
    );
    return answer;
  },

  authHeaders: (key) => ({ "x-api-key": key }),
};

/** Anthropic's error type for an HTTP status. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

function errorType(status: number, code?: string): string {
  if (code === "api_error" || code === "overloaded_error") return code;
  return ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** Builds one assistant message, as SSE events or as one JSON body. */
class MessageBuilder {
  private readonly blocks: Block[] = [];
  private readonly frames: string[] = [];
  private readonly id: string;

  constructor(private readonly context: RenderContext) {
    this.id = `msg_m3_${context.serial}`;
    this.frames.push(
      eventFrame("message_start", {
        type: "message_start",
        message: {
          ...this.envelope([]),
          stop_reason: null,
          usage: { ...this.inputUsage(), output_tokens: 1 },
        },
      }),
      eventFrame("ping", { type: "ping" }),
    );
  }

  private envelope(content: Block[]) {
    return {
      id: this.id,
      type: "message",
      role: "assistant",
      model: this.context.model,
      content,
      stop_reason: null as string | null,
      stop_sequence: null,
    };
  }

  text(text: string): void {
    const index = this.blocks.length;
    this.blocks.push({ type: "text", text });
    this.frames.push(
      eventFrame("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }),
      ...textChunks(text).map((delta) =>
        eventFrame("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: delta },
        }),
      ),
      eventFrame("content_block_stop", { type: "content_block_stop", index }),
    );
  }

  toolUse(id: string, name: string, input: unknown): void {
    const index = this.blocks.length;
    this.blocks.push({ type: "tool_use", id, name, input });
    const text = JSON.stringify(input);
    const half = Math.ceil(text.length / 2);
    this.frames.push(
      eventFrame("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name, input: {} },
      }),
      ...[text.slice(0, half), text.slice(half)].map((partial) =>
        eventFrame("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: partial },
        }),
      ),
      eventFrame("content_block_stop", { type: "content_block_stop", index }),
    );
  }

  /** Anthropic's input usage: the uncached part, and the cache read when the script set one. */
  private inputUsage(): Record<string, number> {
    const { input, cached } = answerUsage(this.context, 1);
    return cached === undefined
      ? { input_tokens: input }
      : { input_tokens: input - cached, cache_read_input_tokens: cached };
  }

  finish(stopReason: "end_turn" | "tool_use"): Rendered {
    const outputTokens = answerUsage(
      this.context,
      Math.max(1, Math.ceil(JSON.stringify(this.blocks).length / 4)),
    ).output;
    if (!this.context.stream) {
      return json(200, {
        ...this.envelope(this.blocks),
        stop_reason: stopReason,
        usage: { ...this.inputUsage(), output_tokens: outputTokens },
      });
    }
    this.frames.push(
      eventFrame("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: outputTokens },
      }),
      eventFrame("message_stop", { type: "message_stop" }),
    );
    return sse(this.frames);
  }

  fail(message: string): Rendered {
    this.frames.push(eventFrame("error", { type: "error", error: { type: "api_error", message } }));
    return sse(this.frames);
  }

  cut(): Rendered {
    if (!this.context.stream) return partialJson(this.envelope([]));
    this.frames.push(
      eventFrame("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      }),
      eventFrame("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: CUT_TEXT },
      }),
    );
    return sse(this.frames, "destroy");
  }

  hang(): Rendered {
    if (!this.context.stream) return hangingJson();
    return sse(this.frames.slice(0, 1), "hang");
  }
}

function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  return contentBlocks(system).map(blockText).join("\n");
}

function contentBlocks(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isPlainObject) : [];
}

function blockText(block: Block): string {
  return typeof block.text === "string" ? block.text : "";
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  return contentBlocks(content)
    .filter((block) => block.type === "text")
    .map(blockText)
    .join("\n");
}
