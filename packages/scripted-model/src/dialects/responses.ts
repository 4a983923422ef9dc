/**
 * The OpenAI Responses API (Codex): `POST <baseUrl>/responses`, streaming. Codex offers MCP
 * tools in namespaces (`mcp__shipping`) or behind `tool_search`, and adds context messages
 * (`<environment_context>`, AGENTS.md) that are not something the user typed.
 */
import {
  isContextualUserText,
  messageRole,
  messageText,
  noTools,
  toolOutputText,
  type NeutralItem,
  type NeutralRequest,
  type OfferedTools,
} from "../conversation";
import { summarizeRequest } from "../cassette";
import type { Decision } from "../decision";
import { encodeSse, errorBody, ResponseBuilder, type SseEvent } from "../responses-stream";
import { isPlainObject } from "../script";
import {
  CUT_TEXT,
  eventData,
  parseArguments,
  retryHeaders,
  type RecordedAnswer,
  sse,
  type Dialect,
  type RenderContext,
  type Rendered,
  type Route,
  type SideAnswer,
} from "./dialect";

/** The Responses dialect. */
export const responses: Dialect = {
  name: "responses",
  baseUrl: (origin) => `${origin}/v1`,
  routes: ["POST <origin>/v1/responses"],

  route(method, pathname): Route | null {
    if (method !== "POST" || !/\/responses\/?$/.test(pathname)) return null;
    return { kind: "main", stream: null, model: null };
  },

  read(body): NeutralRequest {
    const input = Array.isArray(body.input) ? (body.input as unknown[]) : [];
    const raw = input.filter(isPlainObject);
    const items: NeutralItem[] = [];
    const offered: OfferedTools = noTools(false);
    addTools(offered, body.tools);
    for (const item of raw) {
      const role = messageRole(item);
      if (role !== undefined) {
        const text = messageText(item);
        if (role === "user" && !isContextualUserText(text)) items.push({ type: "user", text });
        else if (role === "assistant") items.push({ type: "assistant", text });
        continue;
      }
      const callId = typeof item.call_id === "string" ? item.call_id : "";
      if (item.type === "function_call") {
        items.push({
          type: "call",
          callId,
          namespace: typeof item.namespace === "string" ? item.namespace : null,
          name: typeof item.name === "string" ? item.name : "",
          arguments: item.arguments,
        });
      } else if (item.type === "function_call_output") {
        items.push({ type: "result", callId, output: toolOutputText(item.output) });
      } else if (item.type === "tool_search_call") {
        const args = isPlainObject(item.arguments) ? item.arguments : {};
        items.push({ type: "search", callId, query: String(args.query ?? "") });
      } else if (item.type === "tool_search_output") {
        addTools(offered, item.tools);
      }
    }
    return {
      dialect: "responses",
      items,
      offered,
      model: typeof body.model === "string" ? body.model : "",
      stream: body.stream !== false,
      body,
      conversationKey:
        typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "default",
    };
  },

  render(decision: Decision, context: RenderContext): Rendered {
    const builder = responseFor(context);
    const frames = (events: SseEvent[], then: Rendered["then"] = "end") =>
      sse(events.map(encodeSse), then);
    switch (decision.kind) {
      case "call":
        for (const call of decision.calls) {
          builder.item({
            type: "function_call",
            callId: call.callId,
            namespace: call.namespace,
            name: call.name,
            arguments: JSON.stringify(call.arguments),
          });
        }
        return frames(builder.complete());
      case "tool_search":
        return frames(
          builder
            .item({ type: "tool_search_call", callId: decision.callId, query: decision.query })
            .complete(),
        );
      case "reply":
      case "tool_not_offered":
      case "unmatched":
        return frames(builder.item({ type: "message", text: decision.text }).complete());
      case "fail":
        return frames(builder.fail(decision.message));
      case "cut":
        return frames(builder.partialMessage(CUT_TEXT).partial());
      case "hang":
        return frames(builder.partial(), "hang");
      default:
        throw new Error(`decision ${decision.kind} has no Responses stream`);
    }
  },

  renderSide(answer: SideAnswer, context: RenderContext): Rendered {
    const builder = responseFor(context);
    return sse(builder.item({ type: "message", text: answer.text }).complete().map(encodeSse));
  },

  error(status, message, code): Rendered {
    return {
      status,
      headers: { "content-type": "application/json", ...retryHeaders(status) },
      chunks: [errorBody(status, message, code)],
      then: "end",
    };
  },

  isTerminal(event) {
    const type = event.event ?? eventData(event).type;
    return (
      type === "response.completed" || type === "response.failed" || type === "response.incomplete"
    );
  },

  readAnswer(events): RecordedAnswer {
    const answer: RecordedAnswer = { text: "", calls: [] };
    for (const event of events ?? []) {
      const data = eventData(event);
      if (data.type !== "response.output_item.done" || !isPlainObject(data.item)) continue;
      const item = data.item;
      if (item.type === "function_call") {
        answer.calls.push({
          namespace: typeof item.namespace === "string" ? item.namespace : null,
          name: String(item.name ?? ""),
          arguments: parseArguments(item.arguments),
        });
      } else if (item.type === "message") answer.text += messageText(item);
    }
    return answer;
  },

  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),

  // Codex's own summary, kept as it was so cassettes recorded before dialects still replay.
  summarize: summarizeRequest,
};

function addTools(offered: OfferedTools, tools: unknown) {
  if (!Array.isArray(tools)) return;
  for (const tool of tools) {
    if (!isPlainObject(tool)) continue;
    if (tool.type === "tool_search") {
      offered.search = "codex";
      offered.searchTool = "tool_search";
    }
    if (tool.type === "function" && typeof tool.name === "string") offered.functions.add(tool.name);
    if (tool.type === "namespace" && typeof tool.name === "string") {
      const names = offered.namespaces.get(tool.name) ?? new Set<string>();
      if (Array.isArray(tool.tools)) {
        for (const inner of tool.tools) {
          if (isPlainObject(inner) && typeof inner.name === "string") names.add(inner.name);
        }
      }
      offered.namespaces.set(tool.name, names);
    }
  }
}

/** The response of one answer, started (its `response.created` and `in_progress`). */
function responseFor(context: RenderContext): ResponseBuilder {
  return new ResponseBuilder(
    `resp_m3_${context.serial}`,
    context.model,
    context.inputTokens,
    context.usage,
  ).start();
}
