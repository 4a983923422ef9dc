/**
 * Reading a model request and its answer in each provider dialect: the model, the tools
 * offered and their sizes, the messages' size, the usage the provider reported (streamed
 * or not) and the tool calls the model asked for. Reading never changes what is forwarded.
 */
import { unavailable, type Unavailable } from "../evidence/unavailable.js";
import type { ModelToolCall, OfferedModelTool, TokenUsage } from "./records.js";

type Json = Record<string, unknown>;

/** The dialects the tap reads (structurally core's `TapDialect`). */
export type TapDialect = "responses" | "chat-completions" | "anthropic-messages" | "gemini";

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const bytesOf = (value: unknown): number =>
  value === undefined
    ? 0
    : Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value));
const numberOr = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** Whether a request to `path` asks the model to generate (not a count, list or probe). */
export function isGeneration(method: string, path: string): boolean {
  return (
    method === "POST" &&
    /(\/responses|\/chat\/completions|\/messages|:generateContent|:streamGenerateContent)$/.test(
      path,
    )
  );
}

/** What a request body says, whatever its dialect. */
export interface ReadRequest {
  readonly model: string | null;
  readonly stream: boolean;
  readonly messages: number;
  readonly messageBytes: number;
  readonly tools: OfferedModelTool[];
}

/** What an answer said. */
export interface ReadAnswer {
  readonly usage: TokenUsage | Unavailable;
  readonly toolCalls: ModelToolCall[];
  readonly complete: boolean;
}

function offered(
  name: string,
  namespace: string | null,
  description: unknown,
  schema: unknown,
  whole: unknown,
  offeredBy: OfferedModelTool["offeredBy"] = "tools",
): OfferedModelTool {
  const bytes = bytesOf(whole);
  return {
    name,
    namespace,
    descriptionBytes: typeof description === "string" ? Buffer.byteLength(description) : 0,
    schemaBytes: bytesOf(schema),
    bytes,
    estimatedTokens: Math.ceil(bytes / 4),
    offeredBy,
  };
}

function toolsOf(
  dialect: TapDialect,
  tools: unknown,
  offeredBy: OfferedModelTool["offeredBy"] = "tools",
): OfferedModelTool[] {
  if (!Array.isArray(tools)) return [];
  const out: OfferedModelTool[] = [];
  for (const tool of tools) {
    if (!isObject(tool)) continue;
    if (dialect === "gemini") {
      const declarations = Array.isArray(tool.functionDeclarations)
        ? tool.functionDeclarations
        : [];
      for (const fn of declarations) {
        if (isObject(fn) && typeof fn.name === "string")
          out.push(
            offered(
              fn.name,
              null,
              fn.description,
              fn.parametersJsonSchema ?? fn.parameters,
              fn,
              offeredBy,
            ),
          );
      }
    } else if (dialect === "chat-completions") {
      const fn = isObject(tool.function) ? tool.function : tool;
      if (typeof fn.name === "string")
        out.push(offered(fn.name, null, fn.description, fn.parameters, tool, offeredBy));
    } else if (dialect === "anthropic-messages") {
      if (typeof tool.name === "string")
        out.push(offered(tool.name, null, tool.description, tool.input_schema, tool, offeredBy));
    } else if (
      tool.type === "namespace" &&
      typeof tool.name === "string" &&
      Array.isArray(tool.tools)
    ) {
      for (const inner of tool.tools) {
        if (isObject(inner) && typeof inner.name === "string")
          out.push(
            offered(inner.name, tool.name, inner.description, inner.parameters, inner, offeredBy),
          );
      }
    } else {
      const name =
        typeof tool.name === "string" ? tool.name : typeof tool.type === "string" ? tool.type : "";
      if (name !== "")
        out.push(offered(name, null, tool.description, tool.parameters, tool, offeredBy));
    }
  }
  return out;
}

/** Tools a tool search brought into the conversation (Responses `tool_search_output`). */
function searchedTools(dialect: TapDialect, conversation: unknown): OfferedModelTool[] {
  if (dialect !== "responses" || !Array.isArray(conversation)) return [];
  return conversation.flatMap((item) =>
    isObject(item) && item.type === "tool_search_output"
      ? toolsOf(dialect, item.tools, "tool_search")
      : [],
  );
}

/** Reads a request body (already decoded) of `dialect` sent to `path`. */
export function readRequest(dialect: TapDialect, path: string, body: unknown): ReadRequest {
  const json = isObject(body) ? body : {};
  const pathModel = /\/models\/([^/:]+)(?::(\w+))?/.exec(path);
  const model =
    typeof json.model === "string"
      ? json.model
      : pathModel?.[1]
        ? decodeURIComponent(pathModel[1])
        : null;
  const stream =
    dialect === "gemini" ? pathModel?.[2] === "streamGenerateContent" : json.stream === true;
  const conversation =
    dialect === "responses" ? json.input : dialect === "gemini" ? json.contents : json.messages;
  const system =
    dialect === "responses"
      ? json.instructions
      : dialect === "gemini"
        ? json.systemInstruction
        : dialect === "anthropic-messages"
          ? json.system
          : undefined;
  const messages = Array.isArray(conversation)
    ? conversation.length
    : typeof conversation === "string"
      ? 1
      : 0;
  const tools =
    dialect === "gemini" && !Array.isArray(json.tools) && isObject(json.request)
      ? (json.request as Json).tools
      : json.tools;
  return {
    model,
    stream,
    messages,
    messageBytes: bytesOf(conversation) + bytesOf(system),
    tools: [...toolsOf(dialect, tools), ...searchedTools(dialect, conversation)],
  };
}

/** One server-sent event: its `event:` name (or null) and its `data:` lines joined. */
export interface SseFrame {
  readonly event: string | null;
  readonly data: string;
}

/** Splits an SSE body into frames (a frame left unterminated at the end is included). */
export function sseFrames(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.replace(/\r\n?/g, "\n").split(/\n\n/)) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (event !== null || data.length > 0) frames.push({ event, data: data.join("\n") });
  }
  return frames;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function args(value: unknown): unknown {
  return typeof value === "string" ? (parsed(value) ?? value) : (value ?? {});
}

interface Counts {
  input?: number;
  output?: number;
  cached?: number;
  reasoning?: number;
}

function usage(counts: Counts, why: string): TokenUsage | Unavailable {
  if (counts.input === undefined && counts.output === undefined) return unavailable(why);
  const input = counts.input ?? 0;
  const output = counts.output ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    cachedInputTokens:
      counts.cached ?? unavailable("the provider did not report cached input tokens"),
    reasoningTokens:
      counts.reasoning ?? unavailable("the provider did not report reasoning tokens"),
    source: "provider",
    requests: 1,
  };
}

function openAiUsage(value: unknown, counts: Counts, names: { input: string; output: string }) {
  if (!isObject(value)) return;
  counts.input = numberOr(value[names.input]) ?? counts.input;
  counts.output = numberOr(value[names.output]) ?? counts.output;
  const inDetails = value.input_tokens_details ?? value.prompt_tokens_details;
  const outDetails = value.output_tokens_details ?? value.completion_tokens_details;
  if (isObject(inDetails)) counts.cached = numberOr(inDetails.cached_tokens) ?? counts.cached;
  if (isObject(outDetails))
    counts.reasoning = numberOr(outDetails.reasoning_tokens) ?? counts.reasoning;
}

function anthropicUsage(value: unknown, counts: Counts) {
  if (!isObject(value)) return;
  const plain = numberOr(value.input_tokens);
  const read = numberOr(value.cache_read_input_tokens);
  const created = numberOr(value.cache_creation_input_tokens);
  if (plain !== undefined || read !== undefined || created !== undefined) {
    counts.input = (plain ?? 0) + (read ?? 0) + (created ?? 0);
  }
  if (read !== undefined) counts.cached = read;
  counts.output = numberOr(value.output_tokens) ?? counts.output;
}

function generativeLanguageUsage(value: unknown, counts: Counts) {
  if (!isObject(value)) return;
  counts.input = numberOr(value.promptTokenCount) ?? counts.input;
  const candidates = numberOr(value.candidatesTokenCount);
  const thoughts = numberOr(value.thoughtsTokenCount);
  if (candidates !== undefined || thoughts !== undefined)
    counts.output = (candidates ?? 0) + (thoughts ?? 0);
  if (thoughts !== undefined) counts.reasoning = thoughts;
  counts.cached = numberOr(value.cachedContentTokenCount) ?? counts.cached;
}

/** Reads one JSON event (or a whole JSON answer) into counts and calls. */
class AnswerReader {
  readonly counts: Counts = {};
  readonly calls: ModelToolCall[] = [];
  complete = false;
  private readonly partial = new Map<
    string,
    { id: string | null; name: string; namespace: string | null; text: string }
  >();

  constructor(private readonly dialect: TapDialect) {}

  responses(value: Json, event: string | null) {
    const type = typeof value.type === "string" ? value.type : event;
    const response = isObject(value.response) ? value.response : type === null ? value : undefined;
    if (response)
      openAiUsage(response.usage, this.counts, { input: "input_tokens", output: "output_tokens" });
    if (type === "response.completed" || (type === null && response?.status === "completed"))
      this.complete = true;
    if (type === "response.incomplete" || type === "response.failed") this.complete = true;
    const items =
      type === "response.output_item.done" && isObject(value.item)
        ? [value.item]
        : type === null && Array.isArray(response?.output)
          ? response.output
          : [];
    for (const item of items) {
      if (isObject(item) && item.type === "function_call" && typeof item.name === "string") {
        this.calls.push({
          id: typeof item.call_id === "string" ? item.call_id : null,
          name: item.name,
          namespace: typeof item.namespace === "string" ? item.namespace : null,
          arguments: args(item.arguments),
        });
      }
    }
  }

  chat(value: Json) {
    openAiUsage(value.usage, this.counts, { input: "prompt_tokens", output: "completion_tokens" });
    for (const choice of Array.isArray(value.choices) ? value.choices : []) {
      if (!isObject(choice)) continue;
      if (typeof choice.finish_reason === "string") this.complete = true;
      const message = isObject(choice.message)
        ? choice.message
        : isObject(choice.delta)
          ? choice.delta
          : {};
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (!isObject(call)) continue;
        const fn = isObject(call.function) ? call.function : {};
        const key = String(call.index ?? this.partial.size);
        const known = this.partial.get(key) ?? { id: null, name: "", namespace: null, text: "" };
        if (typeof call.id === "string") known.id = call.id;
        if (typeof fn.name === "string") known.name += fn.name;
        if (typeof fn.arguments === "string") known.text += fn.arguments;
        else if (fn.arguments !== undefined) known.text = JSON.stringify(fn.arguments);
        this.partial.set(key, known);
      }
    }
  }

  anthropic(value: Json, event: string | null) {
    const type = typeof value.type === "string" ? value.type : event;
    if (type === "message_start" && isObject(value.message))
      anthropicUsage(value.message.usage, this.counts);
    if (type === "message_delta") anthropicUsage(value.usage, this.counts);
    if (type === "message_stop") this.complete = true;
    if (type === "content_block_start" && isObject(value.content_block)) {
      const block = value.content_block;
      if (block.type === "tool_use" && typeof block.name === "string") {
        this.partial.set(String(value.index), {
          id: typeof block.id === "string" ? block.id : null,
          name: block.name,
          namespace: null,
          text: "",
        });
      }
    }
    if (type === "content_block_delta" && isObject(value.delta)) {
      const known = this.partial.get(String(value.index));
      if (known && typeof value.delta.partial_json === "string")
        known.text += value.delta.partial_json;
    }
    if (type === "message" || (type === null && Array.isArray(value.content))) {
      anthropicUsage(value.usage, this.counts);
      this.complete = true;
      for (const block of Array.isArray(value.content) ? value.content : []) {
        if (isObject(block) && block.type === "tool_use" && typeof block.name === "string") {
          this.calls.push({
            id: typeof block.id === "string" ? block.id : null,
            name: block.name,
            namespace: null,
            arguments: block.input ?? {},
          });
        }
      }
    }
  }

  generateContent(value: Json) {
    generativeLanguageUsage(value.usageMetadata, this.counts);
    for (const candidate of Array.isArray(value.candidates) ? value.candidates : []) {
      if (!isObject(candidate)) continue;
      if (typeof candidate.finishReason === "string") this.complete = true;
      const content = isObject(candidate.content) ? candidate.content : {};
      for (const part of Array.isArray(content.parts) ? content.parts : []) {
        if (
          isObject(part) &&
          isObject(part.functionCall) &&
          typeof part.functionCall.name === "string"
        ) {
          this.calls.push({
            id: typeof part.functionCall.id === "string" ? part.functionCall.id : null,
            name: part.functionCall.name,
            namespace: null,
            arguments: part.functionCall.args ?? {},
          });
        }
      }
    }
  }

  read(value: unknown, event: string | null) {
    if (Array.isArray(value)) {
      for (const each of value) this.read(each, event);
      return;
    }
    if (!isObject(value)) return;
    if (this.dialect === "responses") this.responses(value, event);
    else if (this.dialect === "chat-completions") this.chat(value);
    else if (this.dialect === "anthropic-messages") this.anthropic(value, event);
    else this.generateContent(value);
  }

  finish(why: string): ReadAnswer {
    for (const call of this.partial.values()) {
      this.calls.push({
        id: call.id,
        name: call.name,
        namespace: call.namespace,
        arguments: call.text === "" ? {} : args(call.text),
      });
    }
    this.partial.clear();
    return { usage: usage(this.counts, why), toolCalls: this.calls, complete: this.complete };
  }
}

/**
 * Reads an answer body (decoded text) of `dialect`: an SSE stream when `contentType` says
 * so or the body looks like one, else one JSON document.
 */
export function readAnswer(dialect: TapDialect, contentType: string, text: string): ReadAnswer {
  const reader = new AnswerReader(dialect);
  const isStream =
    /text\/event-stream/i.test(contentType) || /^(data|event):/m.test(text.slice(0, 200));
  if (isStream) {
    for (const frame of sseFrames(text)) {
      if (frame.data === "[DONE]") {
        reader.complete = true;
        continue;
      }
      reader.read(parsed(frame.data), frame.event);
    }
  } else {
    const body = parsed(text);
    reader.read(body, null);
    if (body !== undefined && dialect === "gemini") reader.complete = true;
  }
  return reader.finish(
    text === ""
      ? "the provider sent no answer body"
      : "the provider's answer carried no usage (a chat-completions stream reports it only when the request asks for stream_options.include_usage)",
  );
}
