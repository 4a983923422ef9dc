/**
 * The part of Pi's RPC mode (`pi --mode rpc`) this adapter speaks: JSON lines on stdin
 * (commands with an `id`) and stdout (a `response` per command, and session events without
 * an id). Only the fields read are typed. The contract test checks {@link PROTOCOL_SURFACE}
 * against the installed Pi, so an upgrade that renames a flag, a command or an event field
 * fails loudly.
 */

/** A JSON value as it arrives from Pi. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** `{"id","type":"response","command","success","data"|"error"}`: the answer to one command. */
export interface RpcResponse {
  readonly type: "response";
  readonly id?: string;
  readonly command: string;
  readonly success: boolean;
  readonly data?: Json;
  readonly error?: string;
}

/** `get_state`'s data: the model Pi selected and the session id. */
export interface PiState {
  readonly sessionId: string;
  readonly isStreaming: boolean;
  readonly messageCount?: number;
  readonly model?: {
    readonly id: string;
    readonly provider: string;
    readonly api: string;
    readonly baseUrl?: string;
  } | null;
}

/** A content part of a message, or of a tool's result. */
export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "toolCall";
      readonly id: string;
      readonly name: string;
      readonly arguments: Json;
    }
  | { readonly type: string; readonly [key: string]: Json | undefined };

/** A message as `agent_end` and `message_end` carry it. */
export interface PiMessage {
  readonly role: "user" | "assistant" | "toolResult" | string;
  readonly content: string | readonly ContentPart[];
  /** Assistant messages: `stop`, `toolUse`, `length`, `error` or `aborted`. */
  readonly stopReason?: string;
  /** Assistant messages that failed: the provider's words. */
  readonly errorMessage?: string;
}

/** `tool_execution_start`: Pi runs a tool the model called. */
export interface ToolExecutionStart {
  readonly type: "tool_execution_start";
  /** The model's own call id (the provider's `tool_calls[].id`). */
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: Json;
}

/** `tool_execution_end`: the tool's result, as the model will see it (plus `details`). */
export interface ToolExecutionEnd {
  readonly type: "tool_execution_end";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly result: {
    readonly content?: readonly ContentPart[];
    /** What the tool kept local (the bridge's server, tool and structured content). */
    readonly details?: Json;
  };
  readonly isError: boolean;
}

/** `agent_end`: one low-level run ended; more may follow until `agent_settled`. */
export interface AgentEnd {
  readonly type: "agent_end";
  readonly messages: readonly PiMessage[];
}

/** `agent_settled`: Pi will not continue on its own (no retry, compaction or queued work). */
export interface AgentSettled {
  readonly type: "agent_settled";
  readonly aborted?: boolean;
}

/** Any event Pi writes on stdout, by `type`. */
export type PiEvent =
  | ToolExecutionStart
  | ToolExecutionEnd
  | AgentEnd
  | AgentSettled
  | { readonly type: string; readonly [key: string]: unknown };

/**
 * What the adapter depends on, for the contract test and readiness: the command-line flags
 * (each in `pi --help`), the commands it sends, and the event fields it reads.
 */
export const PROTOCOL_SURFACE = {
  flags: [
    "--mode",
    "--provider",
    "--model",
    "--no-session",
    "--no-extensions",
    "--extension",
    "--no-skills",
    "--no-prompt-templates",
    "--no-themes",
    "--no-context-files",
    "--no-builtin-tools",
    "--tools",
    "--no-mcp",
    "--offline",
    "--no-approve",
  ],
  commands: ["get_state", "prompt", "abort", "set_auto_retry"],
  events: {
    tool_execution_start: ["toolCallId", "toolName", "args"],
    tool_execution_end: ["toolCallId", "toolName", "result", "isError"],
    agent_end: ["messages"],
    agent_settled: ["aborted"],
  },
  state: ["sessionId", "isStreaming", "model"],
} as const;
