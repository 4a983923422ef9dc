import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Unavailable } from "./unavailable.js";

/** Which way a message crossed the wire, seen from the MCP server. */
export type Direction = "to_server" | "from_server";

/** What a recorded line was. */
export type MessageKind = "request" | "notification" | "response" | "error" | "malformed";

/** One JSON-RPC message (or one line that was not one) that crossed the wire. */
export interface TraceMessage {
  /** Position in the trace, from 0. */
  readonly seq: number;
  /** The server (by its spec name) the message went to or came from. */
  readonly server: string;
  /** The connection it crossed; a server can have several. */
  readonly connection: string;
  readonly direction: Direction;
  readonly kind: MessageKind;
  /** When it was observed: epoch milliseconds from the monotonic clock. */
  readonly at: number;
  /** The parsed message; absent for `malformed` lines. */
  readonly message?: JSONRPCMessage;
  /** The raw text, kept only for lines that were not valid JSON-RPC. */
  readonly raw?: string;
  /** For `malformed` lines: what was wrong with it. */
  readonly problem?: string;
  /** The turn that was open when the message was observed; `null` outside turns. */
  readonly turnId: string | null;
  /** `policy` when the capture answered the message itself (a denied tool call). */
  readonly origin?: "policy";
}

/** The status of a recorded tool call. */
export type ToolCallStatus =
  | "success"
  | "tool_error"
  | "protocol_error"
  | "transport_error"
  | "policy_denied"
  | "cancelled"
  | "timed_out"
  | "incomplete";

/** Where a tool call's evidence came from. */
export type EvidenceSource = "wire" | "reported" | "both";

/**
 * How a wire call and a reported call were paired: `correlated` (both sides, paired),
 * `wire_only`, `reported_only`, or `ambiguous` (candidates exist but no pairing is certain).
 */
export type CorrelationState = "correlated" | "wire_only" | "reported_only" | "ambiguous";

/** A JSON-RPC error as the server sent it. */
export interface JsonRpcErrorValue {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * One `tools/call` as the kit observed it: the request, and the response or the reason
 * there is none.
 */
export interface ToolCall {
  /** Stable within a trace (`call-1`, `call-2`, ...). */
  readonly id: string;
  /** The turn that owns the call; `null` outside agent sessions. */
  readonly turnId: string | null;
  readonly server: string;
  readonly connection: string;
  readonly tool: string;
  /** The arguments as sent, or unavailable when the request carried none that parse. */
  readonly arguments: Readonly<Record<string, unknown>> | Unavailable;
  /** The `CallToolResult`, or unavailable (no response, or an error response). */
  readonly result: Readonly<Record<string, unknown>> | Unavailable;
  /** The JSON-RPC error, for `protocol_error` and `policy_denied`. */
  readonly error: JsonRpcErrorValue | null;
  readonly status: ToolCallStatus;
  readonly evidence: EvidenceSource;
  /** The JSON-RPC id on the wire; unavailable for a call only the harness reported. */
  readonly jsonrpcId: string | number | Unavailable;
  /**
   * When the request was observed (epoch ms, monotonic clock); unavailable only for a call
   * the harness reported without timing.
   */
  readonly startedAt: number | Unavailable;
  /** When the call ended, or unavailable while it has not. */
  readonly endedAt: number | Unavailable;
  /** `endedAt - startedAt`, or unavailable while the call has not ended. */
  readonly latencyMs: number | Unavailable;
  /** In agent sessions: how the wire and reported sides were paired. */
  readonly correlation?: CorrelationState;
  /** Why a call is ambiguous or one-sided, when that needs saying. */
  readonly correlationNote?: string;
  /** In agent sessions: what the harness reported for this call, if it did. */
  readonly reported?: ReportedToolCall;
}

/** Something that happened to a connection or a process, kept with the messages. */
export interface TraceEvent {
  readonly at: number;
  readonly server: string;
  readonly connection: string;
  readonly kind:
    | "connected"
    | "closed"
    | "process_exit"
    | "transport_error"
    | "malformed"
    | "policy_refused"
    | "stderr"
    | "channel_lost"
    | "approval"
    | "harness";
  readonly detail: string;
}

/**
 * A stretch of time in which the kit could not observe a connection (its channel dropped,
 * say). Evidence from a trace with gaps is incomplete: a call may have happened unseen.
 */
export interface EvidenceGap {
  readonly server: string;
  readonly connection: string;
  /** When the gap began. */
  readonly at: number;
  readonly reason: string;
}

/**
 * A judge's verdict as a session's trace keeps it, beside the turn it judged (`turnId`; null
 * for the whole session). Texts are scrubbed of every registered secret; a credential
 * appears only by its variable's name. The evidence and prompt the judge saw are not kept:
 * the trace holds the turns themselves.
 */
export interface TraceVerdict {
  /** The judged turn's id (`<executionId>/turn-<n>`), or null for the whole session. */
  readonly turnId: string | null;
  /** The judged turn's number (1 = first), or null for the whole session. */
  readonly turn: number | null;
  readonly criteria: string;
  /** Which model judged: provider name, base URL, dialect, model, the credential's variable name. */
  readonly judge: {
    readonly provider: string;
    readonly baseUrl: string;
    readonly wireApi: string;
    readonly model: string;
    readonly credentialEnv: string | null;
  };
  /** The judge's own `pass`. */
  readonly pass: boolean;
  /** The judge's score, 0..1. */
  readonly score: number;
  /** Whether the assertion's verdict passes: `pass`, and `score ≥ threshold` when given. */
  readonly passed: boolean;
  readonly threshold: number | null;
  readonly reasoning: string;
  /** From request to answer, in ms. */
  readonly latencyMs: number;
  /** The judge's own token usage, when its provider reported it. */
  readonly usage: {
    readonly inputTokens: number | null;
    readonly outputTokens: number | null;
  } | null;
  /** When the verdict came (epoch ms). */
  readonly at: number;
}

/** Everything recorded for one owner (a direct client, a session): messages, calls, events. */
export interface Trace {
  readonly messages: readonly TraceMessage[];
  readonly toolCalls: readonly ToolCall[];
  readonly events: readonly TraceEvent[];
  /** Where observation failed; empty when the trace is complete. */
  readonly gaps: readonly EvidenceGap[];
  /**
   * In agent sessions: every judge verdict given on the session or one of its turns, oldest
   * first. The list is live: a verdict asked after the session closed joins it.
   */
  readonly verdicts?: readonly TraceVerdict[];
}

/** What a harness says one of its tool calls was. Never proof on its own. */
export interface ReportedToolCall {
  /** The harness's id for the call, if any (Codex: the model's call id). */
  readonly id?: string;
  /**
   * The JSON-RPC id the harness used on the wire, when it knows it. Correlation treats a
   * match as authoritative; leave it out when the harness's ids live in another space.
   */
  readonly jsonrpcId?: string | number;
  readonly server: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>> | Unavailable;
  readonly result: Readonly<Record<string, unknown>> | Unavailable;
  readonly status: ToolCallStatus;
  readonly error?: string;
  readonly startedAt?: number;
  readonly endedAt?: number;
}
