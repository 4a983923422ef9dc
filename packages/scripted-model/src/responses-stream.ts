/**
 * The OpenAI Responses streaming wire format: building the server-sent events of a response
 * (text messages, function calls, tool searches, failures) and reading SSE frames back.
 *
 * Frames are `event: TYPE\ndata: {"type":"TYPE",...}\n\n`. A complete response is
 * `response.created`, `response.in_progress`, per output item `response.output_item.added`,
 * its deltas and `response.output_item.done`, then `response.completed`.
 */
import type { ScriptedUsage } from "./script";

/** One server-sent event: its `event:` name and its `data:` payload (JSON, or raw text). */
export interface SseEvent {
  event: string | null;
  data: unknown;
}

/** An output item the scripted model produces. */
export type OutputItem =
  | { type: "message"; text: string }
  | {
      type: "function_call";
      callId: string;
      namespace: string | null;
      name: string;
      arguments: string;
    }
  | { type: "tool_search_call"; callId: string; query: string };

/** Builds the events of one response; ids are unique per server. */
export class ResponseBuilder {
  private sequence = 0;
  private readonly events: SseEvent[] = [];
  private readonly items: Record<string, unknown>[] = [];
  private readonly createdAt = Math.floor(Date.now() / 1000);

  constructor(
    /** The response id, e.g. `resp_m3_3`. */
    readonly id: string,
    private readonly model: string,
    private readonly inputTokens: number,
    /** The usage the script set for this answer; an estimate when undefined. */
    private readonly usage?: ScriptedUsage,
  ) {}

  private emit(type: string, payload: Record<string, unknown>) {
    this.events.push({ event: type, data: { type, sequence_number: this.sequence++, ...payload } });
  }

  private response(status: string, extra: Record<string, unknown> = {}) {
    return {
      id: this.id,
      object: "response",
      created_at: this.createdAt,
      status,
      model: this.model,
      output: status === "in_progress" ? [] : this.items,
      ...extra,
    };
  }

  /** `response.created` and `response.in_progress`. */
  start(): this {
    this.emit("response.created", { response: this.response("in_progress") });
    this.emit("response.in_progress", { response: this.response("in_progress") });
    return this;
  }

  /** Every event of one output item, from `output_item.added` to `output_item.done`. */
  item(item: OutputItem): this {
    const outputIndex = this.items.length;
    const itemId = `${itemPrefix(item.type)}_${this.id.replace(/^resp_/, "")}_${outputIndex}`;
    if (item.type === "message") {
      const done = {
        type: "message",
        id: itemId,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
      this.emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...done, status: "in_progress", content: [] },
      });
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      this.emit("response.content_part.added", {
        ...at,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (const delta of textChunks(item.text)) {
        this.emit("response.output_text.delta", { ...at, delta });
      }
      this.emit("response.output_text.done", { ...at, text: item.text });
      this.emit("response.content_part.done", {
        ...at,
        part: { type: "output_text", text: item.text, annotations: [] },
      });
      this.emit("response.output_item.done", { output_index: outputIndex, item: done });
      this.items.push(done);
    } else if (item.type === "function_call") {
      const done: Record<string, unknown> = {
        type: "function_call",
        id: itemId,
        call_id: item.callId,
        ...(item.namespace === null ? {} : { namespace: item.namespace }),
        name: item.name,
        arguments: item.arguments,
        status: "completed",
      };
      this.emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...done, arguments: "", status: "in_progress" },
      });
      const at = { item_id: itemId, output_index: outputIndex };
      this.emit("response.function_call_arguments.delta", { ...at, delta: item.arguments });
      this.emit("response.function_call_arguments.done", { ...at, arguments: item.arguments });
      this.emit("response.output_item.done", { output_index: outputIndex, item: done });
      this.items.push(done);
    } else {
      const done = {
        type: "tool_search_call",
        id: itemId,
        call_id: item.callId,
        execution: "client",
        status: "completed",
        arguments: { query: item.query },
      };
      this.emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...done, status: "in_progress" },
      });
      this.emit("response.output_item.done", { output_index: outputIndex, item: done });
      this.items.push(done);
    }
    return this;
  }

  /** `response.completed` with the script's usage, or a token usage estimate. */
  complete(): SseEvent[] {
    const inputTokens = this.usage?.inputTokens ?? this.inputTokens;
    const outputTokens =
      this.usage?.outputTokens ?? Math.max(1, Math.ceil(JSON.stringify(this.items).length / 4));
    this.emit("response.completed", {
      response: this.response("completed", {
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: this.usage?.cachedInputTokens ?? 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: this.usage?.reasoningTokens ?? 0 },
          total_tokens: inputTokens + outputTokens,
        },
      }),
    });
    return this.events;
  }

  /** `response.failed` with an error carrying `message`. */
  fail(message: string, code = "server_error"): SseEvent[] {
    this.emit("response.failed", {
      response: this.response("failed", { error: { code, message } }),
    });
    return this.events;
  }

  /** The events so far, for a stream that stops here (cut or hang). */
  partial(): SseEvent[] {
    return this.events;
  }

  /** Starts a message and streams the first part of its text, without finishing it. */
  partialMessage(text: string): this {
    const outputIndex = this.items.length;
    const itemId = `msg_${this.id.replace(/^resp_/, "")}_${outputIndex}`;
    this.emit("response.output_item.added", {
      output_index: outputIndex,
      item: { type: "message", id: itemId, status: "in_progress", role: "assistant", content: [] },
    });
    const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    this.emit("response.content_part.added", {
      ...at,
      part: { type: "output_text", text: "", annotations: [] },
    });
    this.emit("response.output_text.delta", { ...at, delta: text });
    return this;
  }
}

function itemPrefix(type: OutputItem["type"]): string {
  return type === "message" ? "msg" : type === "function_call" ? "fc" : "tsc";
}

/** Splits text into word-sized deltas. */
function textChunks(text: string): string[] {
  const chunks = text.match(/\S+\s*|\s+/g) ?? [];
  return chunks.length === 0 ? [""] : chunks;
}

/** Encodes one event as an SSE frame. */
export function encodeSse(event: SseEvent): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  const lines = data.split("\n").map((line) => `data: ${line}`);
  return `${event.event === null ? "" : `event: ${event.event}\n`}${lines.join("\n")}\n\n`;
}

/** An OpenAI-style error body for an HTTP error status. */
export function errorBody(status: number, message: string, code?: string): string {
  return JSON.stringify(openAiError(status, message, code));
}

/** The OpenAI-style error object for an HTTP error status (Responses and Chat Completions). */
export function openAiError(
  status: number,
  message: string,
  code?: string,
): { error: { message: string; type: string; code: string; param: null } } {
  const type =
    status === 401
      ? "invalid_request_error"
      : status === 429
        ? "rate_limit_exceeded"
        : status >= 500
          ? "server_error"
          : "invalid_request_error";
  return { error: { message, type, code: code ?? type, param: null } };
}

/**
 * Reads SSE frames from a stream of text chunks: `push` returns the frames completed by a
 * chunk; `end` returns a last frame left without its blank line, if any.
 */
export class SseReader {
  private buffer = "";

  /** Adds a chunk; returns the frames it completes. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, "\n");
    const events: SseEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf("\n\n")) >= 0) {
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event = parseFrame(frame);
      if (event !== null) events.push(event);
    }
    return events;
  }

  /** Returns an unfinished last frame, if the stream ended without its blank line. */
  end(): SseEvent[] {
    const rest = this.buffer;
    this.buffer = "";
    const event = rest.trim().length > 0 ? parseFrame(rest) : null;
    return event === null ? [] : [event];
  }
}

function parseFrame(frame: string): SseEvent | null {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (event === null && data.length === 0) return null;
  const text = data.join("\n");
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}
