/**
 * What every provider dialect module does, and the neutral request it reads into. A dialect
 * knows one wire format (routes, request bodies, streams, error shapes); the decision engine
 * knows none.
 */
import type { ProviderDialect, SidePurpose } from "./names";
import type { DecidedCall, Decision } from "../decision";
import type { NeutralRequest } from "../conversation";
import type { SseEvent } from "../responses-stream";
import type { RequestSummary } from "../cassette";
import type { ScriptedUsage } from "../script";

export type { ProviderDialect, SidePurpose };

/**
 * The provider APIs the scripted model speaks, structurally the same as core's
 * `ProviderDialect`:
 * - `responses`: the OpenAI Responses API (Codex).
 * - `chat-completions`: OpenAI Chat Completions (OpenCode and OpenAI-compatible agents).
 * - `anthropic-messages`: the Anthropic Messages API (Claude Code).
 * - `gemini`: the Gemini API (Gemini CLI).
 */

/** Every {@link ProviderDialect}, in a stable order. */
export const PROVIDER_DIALECTS: readonly ProviderDialect[] = Object.freeze([
  "responses",
  "chat-completions",
  "anthropic-messages",
  "gemini",
]);

/** Where a request goes within a dialect. @internal */
export type Route =
  | { kind: "main"; stream: boolean | null; model: string | null }
  | { kind: "side"; purpose: SidePurpose; model: string | null };

/** A response a dialect produced, for the server to write. @internal */
export interface Rendered {
  status: number;
  headers: Record<string, string>;
  /** Body chunks, written in order. */
  chunks: string[];
  /** After the chunks: finish the body, cut the connection, or hold it open until aborted. */
  then: "end" | "destroy" | "hang";
}

/** What rendering needs besides the decision. @internal */
export interface RenderContext {
  /** A number unique per server, for response ids. */
  serial: number;
  /** The model name the request asked for. */
  model: string;
  /** Whether the request asked for a stream. */
  stream: boolean;
  /** A rough input token count. */
  inputTokens: number;
  /** The usage the script set for this answer; the answer reports an estimate without it. */
  usage?: ScriptedUsage;
  /** The neutral request (offered tools, tool search tool name). */
  request: NeutralRequest;
}

/** A side answer's content: text, or a JSON value for JSON mode. @internal */
export interface SideAnswer {
  purpose: SidePurpose;
  /** The text (for JSON mode, the JSON text). */
  text: string;
}

/** One provider dialect: one wire format over the neutral conversation. @internal */
export interface Dialect {
  readonly name: ProviderDialect;
  /** What the provider's own SDK takes as base URL, given the server's origin. */
  baseUrl(origin: string): string;
  /** The routes it serves, for the "not served" message. */
  readonly routes: readonly string[];
  /** Matches a request to a route, or `null` when it is not this dialect's. */
  route(method: string, pathname: string, search: URLSearchParams): Route | null;
  /** Reads a request body into the neutral request; sets `side` when it is a side request. */
  read(body: Record<string, unknown>, route: Route): NeutralRequest;
  /** Renders a script decision (call, tool_search, reply, fail, cut, hang, …). */
  render(decision: Decision, context: RenderContext): Rendered;
  /** Renders a side answer. */
  renderSide(answer: SideAnswer, context: RenderContext): Rendered;
  /** An error response in this dialect's error shape. */
  error(status: number, message: string, code?: string): Rendered;
  /** Whether a streamed event ends a complete answer (for recordings). */
  isTerminal(event: SseEvent): boolean;
  /** Reads a recorded answer (SSE events, or a JSON body) back into text and calls. */
  readAnswer(events: SseEvent[] | undefined, body: unknown): RecordedAnswer;
  /** The headers that authenticate a forwarded request with `key`. */
  authHeaders(key: string): Record<string, string>;
  /**
   * A dialect's own cassette summary of a request; without one, the summary is taken from
   * the neutral conversation (`summarizeNeutral`).
   */
  summarize?(path: string, body: unknown, volatile: RegExp[]): RequestSummary;
}

/** A recorded answer read back: its text and its tool calls. @internal */
export interface RecordedAnswer {
  text: string;
  calls: { namespace: string | null; name: string; arguments: unknown }[];
}

/** Parses call arguments that may be JSON text. @internal */
export function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The `data` of an event as an object. @internal */
export function eventData(event: SseEvent): Record<string, unknown> {
  return typeof event.data === "object" && event.data !== null && !Array.isArray(event.data)
    ? (event.data as Record<string, unknown>)
    : {};
}

/** A JSON response. @internal */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Rendered {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    chunks: [JSON.stringify(body)],
    then: "end",
  };
}

/** An SSE response. @internal */
export function sse(chunks: string[], then: Rendered["then"] = "end", status = 200): Rendered {
  return {
    status,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    },
    chunks,
    then,
  };
}

/** A `data:`-only SSE frame. @internal */
export function dataFrame(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** A named SSE frame. @internal */
export function eventFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Splits text into word-sized deltas. @internal */
export function textChunks(text: string): string[] {
  const chunks = text.match(/\S+\s*|\s+/g) ?? [];
  return chunks.length === 0 ? [""] : chunks;
}

/** The text a cut stream starts before it stops. @internal */
export const CUT_TEXT = "This response is cut before it completes";

/** A rough token count for a text (about four characters per token). @internal */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/**
 * The usage an answer reports: the script's numbers when it set them (cached and reasoning
 * only when it gave them), else the request's estimated size and `estimatedOutput`.
 * @internal
 */
export function answerUsage(
  context: RenderContext,
  estimatedOutput: number,
): { input: number; output: number; cached?: number; reasoning?: number } {
  const set = context.usage;
  if (set === undefined) return { input: context.inputTokens, output: estimatedOutput };
  return {
    input: set.inputTokens,
    output: set.outputTokens,
    ...(set.cachedInputTokens === undefined ? {} : { cached: set.cachedInputTokens }),
    ...(set.reasoningTokens === undefined ? {} : { reasoning: set.reasoningTokens }),
  };
}

/** The `retry-after` header a 429 carries. @internal */
export function retryHeaders(status: number): Record<string, string> {
  return status === 429 ? { "retry-after": "1" } : {};
}

/** A JSON body cut in the middle. @internal */
export function partialJson(body: unknown): Rendered {
  const text = JSON.stringify(body);
  return { ...json(200, {}), chunks: [text.slice(0, Math.ceil(text.length / 2))], then: "destroy" };
}

/** A non-streamed answer that never comes: its status and headers, then nothing. @internal */
export function hangingJson(): Rendered {
  return { ...json(200, {}), chunks: [], then: "hang" };
}

/** How one dialect's answer renders each kind of decision. @internal */
export interface DecisionAnswers {
  calls(calls: readonly DecidedCall[]): Rendered;
  toolSearch(callId: string, query: string): Rendered;
  /** A reply, a tool not offered, or no rule matched: the text. */
  text(text: string): Rendered;
  fail(message: string): Rendered;
  cut(): Rendered;
  hang(): Rendered;
}

/**
 * A decision rendered by `answers`; one with no answer in the dialect (named `dialect` in the
 * error) throws. @internal
 */
export function renderDecision(
  decision: Decision,
  answers: DecisionAnswers,
  dialect: string,
): Rendered {
  switch (decision.kind) {
    case "call":
      return answers.calls(decision.calls);
    case "tool_search":
      return answers.toolSearch(decision.callId, decision.query);
    case "reply":
    case "tool_not_offered":
    case "unmatched":
      return answers.text(decision.text);
    case "fail":
      return answers.fail(decision.message);
    case "cut":
      return answers.cut();
    case "hang":
      return answers.hang();
    default:
      throw new Error(`decision ${decision.kind} has no ${dialect} answer`);
  }
}

/** Calls read back from their streamed argument text (`{}` when none came). @internal */
export function streamedCalls(
  calls: Iterable<{ readonly name: string; readonly args: string }>,
): RecordedAnswer["calls"] {
  return [...calls].map((call) => ({
    namespace: null,
    name: call.name,
    arguments: parseArguments(call.args || "{}"),
  }));
}

/**
 * The neutral request of a main request: `model` and `stream` from the body unless given.
 * @internal
 */
export function neutralRequest(
  dialect: NeutralRequest["dialect"],
  body: Record<string, unknown>,
  read: Pick<NeutralRequest, "items" | "offered" | "conversationKey"> &
    Partial<Pick<NeutralRequest, "model" | "stream">>,
): NeutralRequest {
  return {
    dialect,
    items: read.items,
    offered: read.offered,
    model: read.model ?? (typeof body.model === "string" ? body.model : ""),
    stream: read.stream ?? body.stream === true,
    body,
    conversationKey: read.conversationKey,
  };
}
