/**
 * The part of Claude Code's stream-json protocol this adapter speaks: JSON lines on stdin
 * (user messages, control requests and responses) and stdout (system, assistant, user and
 * result messages, control requests and responses). Only the fields read are typed. The
 * contract test checks {@link PROTOCOL_SURFACE} against the installed binary, so a Claude
 * Code upgrade that renames a flag, a control request or an event field fails loudly.
 */

/** A JSON value as it arrives from Claude Code. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** A content block of an assistant or user message. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Json;
    }
  | {
      readonly type: "tool_result";
      readonly tool_use_id: string;
      readonly content?: Json;
      readonly is_error?: boolean;
    }
  | { readonly type: string; readonly [key: string]: Json | undefined };

/** Claude Code's note on which MCP server and tool a `tool_use` block called (2.1.332). */
export interface ToolUseMeta {
  readonly id: string;
  readonly server_display_name?: string;
  readonly tool_name?: string;
}

/** Claude Code's note on how a call was permitted (2.1.332). */
export interface ToolResultMeta {
  readonly id: string;
  readonly permission_decision?: { readonly decision?: string };
}

/** An assistant message: text and tool calls. */
export interface AssistantMessage {
  readonly type: "assistant";
  readonly parent_tool_use_id: string | null;
  readonly message: { readonly content: readonly ContentBlock[] };
  readonly tool_use_meta?: readonly ToolUseMeta[];
}

/** A user message on stdout: tool results (and echoed interruptions). */
export interface UserMessage {
  readonly type: "user";
  readonly parent_tool_use_id: string | null;
  readonly message: { readonly content: string | readonly ContentBlock[] };
  readonly tool_use_result?: Json;
  readonly tool_result_meta?: readonly ToolResultMeta[];
}

/** The end of a turn. Check `is_error`, not `subtype` (an API error is `success` + `is_error`). */
export interface ResultMessage {
  readonly type: "result";
  readonly subtype: string;
  readonly is_error: boolean;
  readonly result?: string;
  readonly errors?: readonly string[];
  readonly terminal_reason?: string;
  /** The turn's tokens, all its model requests added up (Anthropic's names). */
  readonly usage?: {
    readonly input_tokens?: number;
    readonly cache_creation_input_tokens?: number;
    readonly cache_read_input_tokens?: number;
    readonly output_tokens?: number;
  };
  readonly permission_denials?: readonly {
    readonly tool_name: string;
    readonly tool_use_id: string;
  }[];
}

/** `mcp_status`'s answer, per server. */
export interface McpServerStatus {
  readonly name: string;
  readonly status: "connected" | "pending" | "failed" | "needs-auth" | "disabled" | string;
  readonly error?: string;
  readonly tools?: readonly { readonly name: string }[];
}

/** A control request Claude Code sends the host (the adapter). */
export interface HostControlRequest {
  readonly type: "control_request";
  readonly request_id: string;
  readonly request: { readonly subtype: string; readonly [key: string]: Json | undefined };
}

/** `can_use_tool`: Claude Code asks whether a tool not pre-approved may run. */
export interface CanUseToolRequest {
  readonly subtype: "can_use_tool";
  readonly tool_name: string;
  readonly input: Json;
  readonly tool_use_id?: string;
}

/**
 * `elicitation`: an MCP server asked for input (`elicitation/create`) and Claude Code
 * 2.1.332 in stream-json mode asks its SDK host. Answered `{ action, content? }`.
 */
export interface ElicitationControlRequest {
  readonly subtype: "elicitation";
  readonly mcp_server_name: string;
  readonly message?: string;
  readonly mode?: "form" | "url";
  readonly url?: string;
  readonly elicitation_id?: string;
  readonly requested_schema?: { readonly [key: string]: Json };
}

/** The answer to `can_use_tool`. */
export type PermissionAnswer =
  | { readonly behavior: "allow"; readonly updatedInput: Json }
  | { readonly behavior: "deny"; readonly message: string };

/** Any message Claude Code writes on stdout, by `type`. */
export type StreamMessage =
  | AssistantMessage
  | UserMessage
  | ResultMessage
  | { readonly type: string; readonly subtype?: string; readonly [key: string]: unknown };

/**
 * What the adapter depends on, for the contract test: the command-line flags, the control
 * requests it sends and answers, and the message fields it reads.
 */
export const PROTOCOL_SURFACE = {
  flags: [
    "--print",
    "--input-format",
    "--output-format",
    "--verbose",
    "--strict-mcp-config",
    "--setting-sources",
    "--tools",
    "--allowedTools",
    "--disallowedTools",
    "--permission-prompt-tool",
    "--model",
    "--session-id",
    "--no-session-persistence",
  ],
  controlRequests: [
    "mcp_set_servers",
    "mcp_status",
    "apply_flag_settings",
    "interrupt",
    "rewind_conversation",
  ],
  hostRequests: ["can_use_tool"],
  messages: {
    init: ["type", "subtype", "session_id", "tools", "mcp_servers", "claude_code_version"],
    assistant: ["type", "message", "session_id", "tool_use_meta"],
    user: ["type", "message", "session_id", "tool_use_result", "tool_result_meta"],
    result: ["type", "subtype", "is_error", "result", "session_id", "permission_denials", "usage"],
  },
} as const;
