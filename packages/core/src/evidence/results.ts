import type { ResultError } from "../errors.js";
import type { WorkspaceResult } from "../workspace/result.js";
import type { EvidenceGap, Trace, ToolCall } from "./trace.js";
import type { ExecutionOutcome, Lifecycle, TurnLifecycle, TurnOutcome } from "./outcomes.js";
import type { Unavailable } from "./unavailable.js";
import type { ModelRequest, TokenUsage } from "../provider-tap/records.js";

/** Where a turn stands. */
export interface TurnSnapshot {
  /** Unique within the process: `<executionId>/turn-<n>`. */
  readonly turnId: string;
  /** The harness's conversation id (Codex: the thread id); the same for every turn of a session. */
  readonly sessionId: string;
  /** 1 for the first turn of the session. */
  readonly number: number;
  readonly lifecycle: TurnLifecycle;
  readonly outcome: TurnOutcome | null;
  /** Epoch ms, monotonic clock. */
  readonly createdAt: number;
  readonly finishedAt: number | null;
}

/** One turn: the prompt, the agent's reply, and the tool calls that belong to it. */
export interface TurnResult {
  readonly snapshot: TurnSnapshot;
  readonly prompt: string;
  readonly response: { readonly text: string } | null;
  /** What went wrong, when the turn did not complete: `{ code, message, retryable, details }`. */
  readonly error: ResultError | null;
  /** Every call of this turn, wire and reported evidence correlated. */
  readonly toolCalls: readonly ToolCall[];
  /** The harness's raw events for this turn. */
  readonly events: readonly unknown[];
  /**
   * Where observation had failed by the end of this turn (a relay's channel lost, say): a
   * call in this turn may have crossed unseen, so no assertion of absence can pass.
   */
  readonly gaps: readonly EvidenceGap[];
  /**
   * The model requests of this turn, as the provider tap saw them (see
   * docs/model-usage.md). Absent in results made without a tap.
   */
  readonly modelRequests?: readonly ModelRequest[];
  /**
   * The tokens of this turn's model requests, or why they are unavailable: as the provider
   * reported them through the tap, or, where no tap stood in the path, {@link reportedUsage}.
   */
  readonly usage?: TokenUsage | Unavailable;
  /**
   * The tokens the agent reported in its own events for this turn (`source:
   * "agent-reported"`), or why there are none; reported evidence, next to the tap's.
   */
  readonly reportedUsage?: TokenUsage | Unavailable;
}

/**
 * The model provider that served a session, as its result records it: the selection's
 * `ModelProvider` (from the harness contract), read back. `wireApi` is one of
 * `PROVIDER_DIALECTS`; `envKey` is a variable name, never a key.
 */
export interface ProviderRecord {
  readonly name: string;
  readonly baseUrl: string;
  readonly wireApi: string;
  readonly envKey?: string;
}

/** Who ran the session. */
export interface AgentIdentity {
  readonly name: string;
  readonly harness: string;
  readonly model: string;
  /** The harness's version as readiness found it, or null when unknown. */
  readonly version: string | null;
}

/** Where a session stands. */
export interface ExecutionSnapshot {
  readonly executionId: string;
  /** The harness's conversation id, once the session opened. */
  readonly sessionId: string | null;
  readonly lifecycle: Lifecycle;
  readonly outcome: ExecutionOutcome | null;
  readonly toolCallCount: number;
  readonly agent: AgentIdentity;
  /**
   * The model provider that served the session: its name, base URL and dialect (never a
   * key: `envKey` is a variable name). Null when the harness used its own default.
   */
  readonly provider?: ProviderRecord | null;
  readonly createdAt: number;
  readonly finishedAt: number | null;
}

/** A whole session, final once it closed: every turn, the full trace, and any error. */
export interface ExecutionResult {
  readonly snapshot: ExecutionSnapshot;
  readonly turns: readonly TurnResult[];
  /** Everything observed: wire messages, correlated tool calls, events, gaps. */
  readonly trace: Trace;
  /** What went wrong, when the session did not complete: `{ code, message, retryable, details }`. */
  readonly error: ResultError | null;
  /** Every model request of the session (turns, opening and closing), as the tap saw them. */
  readonly modelRequests?: readonly ModelRequest[];
  /** The tokens of the whole session, or why they are unavailable. */
  readonly usage?: TokenUsage | Unavailable;
  /** What the session changed in its workspace (only for a session given `workspace`). */
  readonly workspace?: WorkspaceResult;
}
