/**
 * What the provider tap records of the model side: one {@link ModelRequest} per request an
 * agent sent its model provider, and the {@link TokenUsage} a turn or a session adds up to.
 * Data only (results carry it), so it sits with the evidence types.
 */
import type { Unavailable } from "../evidence/unavailable.js";

/**
 * Tokens as the provider reported them, in one shape for every dialect. `inputTokens`
 * counts the whole prompt, cached part included (Anthropic's `input_tokens`,
 * `cache_read_input_tokens` and `cache_creation_input_tokens` added up); `outputTokens`
 * counts everything generated, reasoning included (Gemini's `candidatesTokenCount` and
 * `thoughtsTokenCount` added up). `cachedInputTokens` and `reasoningTokens` are
 * {@link Unavailable} where the provider did not say.
 *
 * @example
 * ```ts
 * if (!isUnavailable(turn.usage)) console.log(turn.usage.inputTokens, turn.usage.outputTokens);
 * ```
 */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** `inputTokens + outputTokens`. */
  readonly totalTokens: number;
  readonly cachedInputTokens: number | Unavailable;
  readonly reasoningTokens: number | Unavailable;
  /**
   * Where the numbers come from: `provider` (the tap read them from the provider's own
   * responses) or `agent-reported` (the agent's own events said so; nothing on the wire
   * was read).
   */
  readonly source: "provider" | "agent-reported";
  /**
   * How many model requests the numbers add up (for `agent-reported` usage, how many usage
   * reports the agent's events held).
   */
  readonly requests: number;
}

/** One tool a model request offered, as the agent sent it (after its own renaming). */
export interface OfferedModelTool {
  /** The name the model sees (`mcp__shipping__shipping_quote`, `shipping_quote`, …). */
  readonly name: string;
  /** The namespace it was offered in (Responses namespaces), or null. */
  readonly namespace: string | null;
  /** Bytes (UTF-8) of its description. */
  readonly descriptionBytes: number;
  /** Bytes (UTF-8) of its parameter schema as JSON. */
  readonly schemaBytes: number;
  /** Bytes (UTF-8) of the whole tool definition as JSON. */
  readonly bytes: number;
  /** `bytes / 4`, rounded up: a rough token estimate that is the same on every agent. */
  readonly estimatedTokens: number;
  /**
   * `tools` when the request's tool list offered it; `tool_search` when it came into the
   * conversation as a tool search's result (a deferred tool, loaded on demand).
   */
  readonly offeredBy: "tools" | "tool_search";
}

/** A tool call the model asked for in its answer (not proof that it reached a server). */
export interface ModelToolCall {
  /** The call id the model gave, or null. */
  readonly id: string | null;
  /** The tool name as the model spelled it. */
  readonly name: string;
  readonly namespace: string | null;
  /** The arguments, parsed when they are JSON. */
  readonly arguments: unknown;
}

/** One request an agent sent its model provider, and what came back, as the tap saw it. */
export interface ModelRequest {
  /** `model-request-<n>`, in arrival order within the session. */
  readonly id: string;
  /** The turn the request arrived in, or null (while the session opened or closed). */
  readonly turnId: string | null;
  /** The dialect of the provider the tap stood in front of. */
  readonly dialect: string;
  readonly method: string;
  /** The request path (no query string: it may carry a key). */
  readonly path: string;
  /** The model the request asked for, or null when it named none. */
  readonly model: string | null;
  readonly stream: boolean;
  /**
   * Whether the request asks the model to generate (Responses, Chat Completions, Messages,
   * `generateContent`); token counts, model lists and probes do not, and have no usage.
   */
  readonly generation: boolean;
  /** Monotonic epoch ms. */
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly latencyMs: number | null;
  /** The HTTP status the provider answered, or null when no answer came. */
  readonly status: number | null;
  /** What went wrong on the way (a cut stream, an unreachable provider), or null. */
  readonly error: string | null;
  /** The names of the request headers (never their values). */
  readonly headerNames: readonly string[];
  readonly request: {
    /** Bytes of the body, exactly as the agent sent it (and as the tap forwarded it). */
    readonly bytes: number;
    /** SHA-256 (hex) of those bytes. */
    readonly sha256: string;
    /** How many messages (input items, contents) the conversation held. */
    readonly messages: number;
    /** Bytes of the messages (plus system text or instructions) as JSON. */
    readonly messageBytes: number;
    /** The tools offered, in order. */
    readonly tools: readonly OfferedModelTool[];
    /** Bytes of every tool definition together. */
    readonly toolBytes: number;
    /**
     * Set when the body could not be read for the fields above (forwarded all the same):
     * `not decoded (zstd): …` on a Node without a zstd decoder, an unknown encoding.
     */
    readonly decoding?: string;
  };
  readonly response: {
    readonly bytes: number;
    /** Whether a successful answer ended as its dialect ends one (a cut stream, an error did not). */
    readonly complete: boolean;
    /** Set when the answer could not be read for usage and calls (it reached the agent as sent). */
    readonly decoding?: string;
  };
  /** Usage as the provider reported it in this answer, or why there is none. */
  readonly usage: TokenUsage | Unavailable;
  /** The tool calls the model asked for in this answer. */
  readonly toolCalls: readonly ModelToolCall[];
}
