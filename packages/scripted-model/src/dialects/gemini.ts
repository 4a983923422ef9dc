/**
 * The Gemini API (Gemini CLI): `POST /v1beta/models/<model>:generateContent`,
 * `:streamGenerateContent?alt=sse`, `:countTokens`, and `GET /v1beta/models`. Gemini CLI names
 * MCP tools `mcp_server_tool`, sends tool results as `functionResponse` parts, and asks a
 * router or classifier in JSON mode (`responseMimeType: "application/json"`) before a turn.
 */
import {
  isContextualUserText,
  noTools,
  type NeutralItem,
  type NeutralRequest,
} from "../conversation";
import type { DecidedCall, Decision } from "../decision";
import { isPlainObject } from "../script";
import {
  answerUsage,
  CUT_TEXT,
  dataFrame,
  eventData,
  hangingJson,
  json,
  neutralRequest,
  partialJson,
  renderDecision,
  retryHeaders,
  sse,
  textChunks,
  type DecisionAnswers,
  type Dialect,
  type RecordedAnswer,
  type RenderContext,
  type Rendered,
  type Route,
  type SideAnswer,
} from "./dialect";

const ROUTE =
  /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
const UNTRUSTED = /^<untrusted_context>\n?([\s\S]*?)\n?<\/untrusted_context>$/;

/** Gemini CLI's session summary prompt (a tool-less request). */
const SUMMARY = /^Summarize the user's primary intent/;

type Part = Record<string, unknown>;

function lastUserText(items: NeutralItem[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.type === "user") return item.text;
  }
  return "";
}

/** The Gemini dialect. */
export const gemini: Dialect = {
  name: "gemini",
  baseUrl: (origin) => origin,
  routes: [
    "POST <origin>/v1beta/models/<model>:generateContent",
    "POST <origin>/v1beta/models/<model>:streamGenerateContent?alt=sse",
    "POST <origin>/v1beta/models/<model>:countTokens",
    "GET <origin>/v1beta/models",
  ],

  route(method, pathname): Route | null {
    if (method === "GET" && /^\/(v1beta|v1|v1alpha)\/models\/?$/.test(pathname)) {
      return { kind: "side", purpose: "models", model: null };
    }
    const match = method === "POST" ? ROUTE.exec(pathname) : null;
    if (match === null) return null;
    const model = decodeURIComponent(match[2] as string);
    if (match[3] === "countTokens") return { kind: "side", purpose: "token_count", model };
    return { kind: "main", stream: match[3] === "streamGenerateContent", model };
  },

  read(body, route): NeutralRequest {
    const offered = noTools();
    for (const tool of Array.isArray(body.tools) ? body.tools : []) {
      if (!isPlainObject(tool) || !Array.isArray(tool.functionDeclarations)) continue;
      for (const fn of tool.functionDeclarations) {
        if (isPlainObject(fn) && typeof fn.name === "string") offered.functions.add(fn.name);
      }
    }
    const items: NeutralItem[] = [];
    const unanswered: { id: string; name: string }[] = [];
    let calls = 0;
    for (const content of Array.isArray(body.contents) ? body.contents : []) {
      if (!isPlainObject(content)) continue;
      const parts = Array.isArray(content.parts) ? content.parts.filter(isPlainObject) : [];
      if (content.role === "model") {
        for (const part of parts) {
          if (typeof part.text === "string" && part.thought !== true && part.text.length > 0) {
            items.push({ type: "assistant", text: part.text });
          } else if (isPlainObject(part.functionCall)) {
            const call = part.functionCall;
            const name = String(call.name ?? "");
            const id = typeof call.id === "string" ? call.id : `gemini_call_${++calls}`;
            unanswered.push({ id, name });
            items.push({ type: "call", callId: id, namespace: null, name, arguments: call.args });
          }
        }
        continue;
      }
      const typed: string[] = [];
      for (const part of parts) {
        if (isPlainObject(part.functionResponse)) {
          const response = part.functionResponse;
          const name = String(response.name ?? "");
          let index = unanswered.findIndex((c) =>
            typeof response.id === "string" ? c.id === response.id : c.name === name,
          );
          if (index < 0) index = unanswered.findIndex((c) => c.name === name);
          const callId =
            typeof response.id === "string"
              ? response.id
              : (unanswered[index]?.id ?? `gemini_result_${name}`);
          if (index >= 0) unanswered.splice(index, 1);
          items.push({ type: "result", callId, output: responseText(response.response) });
        } else if (typeof part.text === "string" && !isContextualUserText(part.text)) {
          typed.push(part.text);
        }
      }
      if (typed.length > 0) items.push({ type: "user", text: typed.join("\n") });
    }
    const config = isPlainObject(body.generationConfig) ? body.generationConfig : {};
    const request = neutralRequest("gemini", body, {
      items,
      offered,
      model: route.model ?? "",
      stream: route.kind === "main" && route.stream === true,
      conversationKey: "default",
    });
    if (config.responseMimeType === "application/json") {
      request.side = "routing";
      request.schema = config.responseJsonSchema ?? config.responseSchema;
    } else if (offered.functions.size === 0 && SUMMARY.test(lastUserText(items))) {
      request.side = "summary";
    }
    return request;
  },

  render: (decision: Decision, context: RenderContext): Rendered =>
    renderDecision(decision, new Candidate(context), "Gemini"),

  renderSide(answer: SideAnswer, context: RenderContext): Rendered {
    if (answer.purpose === "token_count") return json(200, { totalTokens: context.inputTokens });
    if (answer.purpose === "models") {
      return json(200, {
        models: [
          {
            name: `models/${context.model || "scripted"}`,
            displayName: "Scripted model",
            supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
          },
        ],
      });
    }
    return new Candidate(context).text(answer.text);
  },

  isTerminal(event) {
    const data = eventData(event);
    if (isPlainObject(data.error)) return true;
    const candidates = Array.isArray(data.candidates) ? data.candidates : [];
    return candidates.some((c) => isPlainObject(c) && typeof c.finishReason === "string");
  },

  readAnswer(events, body): RecordedAnswer {
    const answer: RecordedAnswer = { text: "", calls: [] };
    const chunks = events === undefined ? [body] : events.map((event) => event.data);
    for (const chunk of chunks) {
      const candidates =
        isPlainObject(chunk) && Array.isArray(chunk.candidates) ? chunk.candidates : [];
      const content = isPlainObject(candidates[0]) ? candidates[0].content : undefined;
      const parts = isPlainObject(content) && Array.isArray(content.parts) ? content.parts : [];
      for (const part of parts.filter(isPlainObject)) {
        if (typeof part.text === "string" && part.thought !== true) answer.text += part.text;
        if (isPlainObject(part.functionCall)) {
          answer.calls.push({
            namespace: null,
            name: String(part.functionCall.name),
            arguments: part.functionCall.args ?? {},
          });
        }
      }
    }
    return answer;
  },

  authHeaders: (key) => ({ "x-goog-api-key": key }),

  error(status, message): Rendered {
    return json(
      status,
      { error: { code: status, message, status: statusName(status) } },
      retryHeaders(status),
    );
  },
};

/** Gemini's status name for an HTTP status. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function statusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
}

/** Builds one candidate, as SSE chunks or as one JSON body. */
class Candidate implements DecisionAnswers {
  constructor(private readonly context: RenderContext) {}

  calls(calls: readonly DecidedCall[]): Rendered {
    return this.finish(
      calls.map((call) => ({
        functionCall: { id: call.callId, name: call.name, args: call.arguments },
      })),
    );
  }

  toolSearch(_callId: string, query: string): Rendered {
    return this.text(`(tool search ${query} is not available here)`);
  }

  fail(message: string): Rendered {
    if (!this.context.stream) return gemini.error(500, message);
    return sse([dataFrame({ error: { code: 500, message, status: "INTERNAL" } })]);
  }

  cut(): Rendered {
    if (!this.context.stream) return partialJson(this.body([{ text: CUT_TEXT }], null));
    return sse([dataFrame(this.body([{ text: CUT_TEXT }], null))], "destroy");
  }

  hang(): Rendered {
    return this.context.stream ? sse([], "hang") : hangingJson();
  }

  body(parts: Part[], finishReason: string | null): Record<string, unknown> {
    const { input, output, cached, reasoning } = answerUsage(
      this.context,
      Math.max(1, Math.ceil(JSON.stringify(parts).length / 4)),
    );
    return {
      candidates: [
        {
          content: { role: "model", parts },
          ...(finishReason === null ? {} : { finishReason }),
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: input,
        // Gemini counts thoughts apart from the candidates; outputTokens holds both.
        candidatesTokenCount: output - (reasoning ?? 0),
        ...(reasoning === undefined ? {} : { thoughtsTokenCount: reasoning }),
        ...(cached === undefined ? {} : { cachedContentTokenCount: cached }),
        totalTokenCount: input + output,
      },
      modelVersion: this.context.model,
      responseId: `m3-${this.context.serial}`,
    };
  }

  text(text: string): Rendered {
    if (!this.context.stream) return json(200, this.body([{ text }], "STOP"));
    const chunks = textChunks(text);
    return sse(
      chunks.map((chunk, i) =>
        dataFrame(this.body([{ text: chunk }], i === chunks.length - 1 ? "STOP" : null)),
      ),
    );
  }

  finish(parts: Part[]): Rendered {
    if (!this.context.stream) return json(200, this.body(parts, "STOP"));
    return sse([dataFrame(this.body(parts, "STOP"))]);
  }
}

function responseText(response: unknown): string {
  let text: string;
  if (isPlainObject(response) && typeof response.output === "string") text = response.output;
  else if (isPlainObject(response) && typeof response.error === "string") text = response.error;
  else text = JSON.stringify(response ?? null);
  const wrapped = UNTRUSTED.exec(text.trim());
  return wrapped === null ? text : (wrapped[1] as string);
}
