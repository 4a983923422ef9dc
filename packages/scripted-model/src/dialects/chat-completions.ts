/**
 * OpenAI Chat Completions (OpenCode and OpenAI-compatible agents): `POST /v1/chat/completions`
 * (SSE chunks with `tool_calls` deltas, or one JSON body) and `GET /v1/models`. OpenCode names
 * MCP tools `server_tool` and asks for a conversation title first, with no tools.
 */
import { contentText, noTools, type NeutralItem, type NeutralRequest } from "../conversation";
import type { DecidedCall, Decision } from "../decision";
import { openAiError } from "../responses-stream";
import { isPlainObject } from "../script";
import {
  answerUsage,
  CUT_TEXT,
  dataFrame,
  eventData,
  hangingJson,
  json,
  neutralRequest,
  parseArguments,
  partialJson,
  renderDecision,
  retryHeaders,
  sse,
  streamedCalls,
  textChunks,
  type DecisionAnswers,
  type Dialect,
  type RecordedAnswer,
  type RenderContext,
  type Rendered,
  type Route,
  type SideAnswer,
} from "./dialect";

/** The Chat Completions dialect. */
export const chatCompletions: Dialect = {
  name: "chat-completions",
  baseUrl: (origin) => `${origin}/v1`,
  routes: ["POST <origin>/v1/chat/completions", "GET <origin>/v1/models"],

  route(method, pathname): Route | null {
    if (method === "POST" && /\/chat\/completions\/?$/.test(pathname)) {
      return { kind: "main", stream: null, model: null };
    }
    if (method === "GET" && /^\/v1\/models\/?$/.test(pathname)) {
      return { kind: "side", purpose: "models", model: null };
    }
    return null;
  },

  read(body): NeutralRequest {
    const offered = noTools();
    for (const tool of Array.isArray(body.tools) ? body.tools : []) {
      if (!isPlainObject(tool)) continue;
      const fn = isPlainObject(tool.function) ? tool.function : tool;
      if (typeof fn.name === "string") offered.functions.add(fn.name);
    }
    const items: NeutralItem[] = [];
    let system = "";
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isPlainObject(message)) continue;
      const text = contentText(message.content);
      switch (message.role) {
        case "system":
        case "developer":
          system += `${text}\n`;
          break;
        case "user":
          items.push({ type: "user", text });
          break;
        case "assistant":
          if (text.length > 0) items.push({ type: "assistant", text });
          for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
            if (!isPlainObject(call)) continue;
            const fn = isPlainObject(call.function) ? call.function : {};
            items.push({
              type: "call",
              callId: String(call.id ?? ""),
              namespace: null,
              name: String(fn.name ?? ""),
              arguments: fn.arguments,
            });
          }
          break;
        case "tool":
          items.push({ type: "result", callId: String(message.tool_call_id ?? ""), output: text });
          break;
      }
    }
    const conversationKey = typeof body.user === "string" ? body.user : "default";
    const request = neutralRequest("chat-completions", body, { items, offered, conversationKey });
    if (offered.functions.size === 0 && /\btitle\b/i.test(system)) request.side = "title";
    return request;
  },

  render: (decision: Decision, context: RenderContext): Rendered =>
    renderDecision(decision, new Completion(context), "Chat Completions"),

  renderSide(answer: SideAnswer, context: RenderContext): Rendered {
    if (answer.purpose === "models") {
      return json(200, {
        object: "list",
        data: [
          { id: context.model || "scripted", object: "model", created: 0, owned_by: "jest-m3" },
        ],
      });
    }
    return new Completion(context).finish(answer.text, []);
  },

  error: (status, message, code): Rendered =>
    json(status, openAiError(status, message, code), retryHeaders(status)),

  isTerminal: (event) => event.data === "[DONE]" || isPlainObject(eventData(event).error),

  readAnswer(events, body): RecordedAnswer {
    const answer: RecordedAnswer = { text: "", calls: [] };
    if (events === undefined) {
      const choices = isPlainObject(body) && Array.isArray(body.choices) ? body.choices : [];
      const message = isPlainObject(choices[0]) ? choices[0].message : undefined;
      if (!isPlainObject(message)) return answer;
      answer.text = contentText(message.content);
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        const fn = isPlainObject(call) && isPlainObject(call.function) ? call.function : {};
        answer.calls.push({
          namespace: null,
          name: String(fn.name),
          arguments: parseArguments(fn.arguments),
        });
      }
      return answer;
    }
    const calls = new Map<number, { name: string; args: string }>();
    for (const event of events) {
      const choices = eventData(event).choices;
      const delta = Array.isArray(choices) && isPlainObject(choices[0]) ? choices[0].delta : null;
      if (!isPlainObject(delta)) continue;
      if (typeof delta.content === "string") answer.text += delta.content;
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        if (!isPlainObject(call)) continue;
        const index = Number(call.index ?? 0);
        const entry = calls.get(index) ?? { name: "", args: "" };
        const fn = isPlainObject(call.function) ? call.function : {};
        if (typeof fn.name === "string") entry.name += fn.name;
        if (typeof fn.arguments === "string") entry.args += fn.arguments;
        calls.set(index, entry);
      }
    }
    answer.calls.push(...streamedCalls(calls.values()));
    return answer;
  },

  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
};

interface Call {
  id: string;
  name: string;
  arguments: string;
}

/** Builds one chat completion, as chunks or as one JSON body. */
class Completion implements DecisionAnswers {
  private readonly id: string;
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly context: RenderContext) {
    this.id = `chatcmpl-m3-${context.serial}`;
  }

  private chunk(delta: Record<string, unknown>, finish: string | null = null) {
    return dataFrame({
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.context.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  }

  private usage(text: string) {
    const { input, output, cached, reasoning } = answerUsage(
      this.context,
      Math.max(1, Math.ceil(text.length / 4)),
    );
    return {
      prompt_tokens: input,
      completion_tokens: output,
      total_tokens: input + output,
      ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
      ...(reasoning === undefined
        ? {}
        : { completion_tokens_details: { reasoning_tokens: reasoning } }),
    };
  }

  calls(calls: readonly DecidedCall[]): Rendered {
    return this.finish(
      null,
      calls.map((call) => ({
        id: call.callId,
        name: call.name,
        arguments: JSON.stringify(call.arguments),
      })),
    );
  }

  toolSearch(_callId: string, query: string): Rendered {
    return this.finish(`(tool search ${query} is not available here)`, []);
  }

  text(text: string): Rendered {
    return this.finish(text, []);
  }

  finish(text: string | null, calls: Call[]): Rendered {
    const finish = calls.length > 0 ? "tool_calls" : "stop";
    const usage = this.usage(`${text ?? ""}${JSON.stringify(calls)}`);
    if (!this.context.stream) {
      return json(200, {
        id: this.id,
        object: "chat.completion",
        created: this.created,
        model: this.context.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: text,
              refusal: null,
              ...(calls.length === 0
                ? {}
                : {
                    tool_calls: calls.map((call) => ({
                      id: call.id,
                      type: "function",
                      function: { name: call.name, arguments: call.arguments },
                    })),
                  }),
            },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        usage,
      });
    }
    const frames = [this.chunk({ role: "assistant", content: "" })];
    if (text !== null) frames.push(...textChunks(text).map((t) => this.chunk({ content: t })));
    calls.forEach((call, index) => {
      frames.push(
        this.chunk({
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        }),
        this.chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }),
      );
    });
    frames.push(this.chunk({}, finish));
    const options = isPlainObject(this.context.request.body.stream_options)
      ? this.context.request.body.stream_options
      : {};
    if (options.include_usage === true) {
      frames.push(
        dataFrame({
          id: this.id,
          object: "chat.completion.chunk",
          created: this.created,
          model: this.context.model,
          choices: [],
          usage,
        }),
      );
    }
    frames.push(dataFrame("[DONE]"));
    return sse(frames);
  }

  fail(message: string): Rendered {
    if (!this.context.stream) return chatCompletions.error(500, message, "server_error");
    return sse([
      this.chunk({ role: "assistant", content: "" }),
      dataFrame({ error: { message, type: "server_error", code: "server_error", param: null } }),
    ]);
  }

  cut(): Rendered {
    if (!this.context.stream) return partialJson({ id: this.id, object: "chat.completion" });
    return sse(
      [this.chunk({ role: "assistant", content: "" }), this.chunk({ content: CUT_TEXT })],
      "destroy",
    );
  }

  hang(): Rendered {
    if (!this.context.stream) return hangingJson();
    return sse([this.chunk({ role: "assistant", content: "" })], "hang");
  }
}
