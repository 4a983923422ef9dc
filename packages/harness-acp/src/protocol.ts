/**
 * The part of the Agent Client Protocol (v1) this adapter speaks, as types from the official
 * SDK, and the list of methods and fields it relies on (checked against the SDK's schema
 * and each pinned agent by the contract tests).
 */
export type {
  AgentCapabilities,
  ContentBlock,
  InitializeRequest,
  InitializeResponse,
  McpServer,
  McpServerStdio,
  NewSessionRequest,
  NewSessionResponse,
  PermissionOption,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionNotification,
  SessionUpdate,
  StopReason,
  ToolCall,
  ToolCallContent,
  ToolCallStatus as AcpToolCallStatus,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk" with { "resolution-mode": "import" };

/** The ACP protocol version this adapter speaks. */
export const ACP_PROTOCOL_VERSION = 1;

/** The client identity the adapter gives agents in `initialize`. */
export const CLIENT_INFO = { name: "jest-m3", title: "jest-m3", version: "0.1.0" } as const;

/**
 * What the adapter sends and reads, for the contract tests: the agent methods it calls,
 * the client methods it answers, the session updates it reads, and the fields of each.
 */
export const PROTOCOL_SURFACE = {
  agentRequests: ["initialize", "session/new", "session/prompt", "session/set_config_option"],
  agentNotifications: ["session/cancel"],
  clientRequests: ["session/request_permission"],
  clientNotifications: ["session/update"],
  sessionUpdates: ["agent_message_chunk", "tool_call", "tool_call_update"],
  toolCallFields: ["toolCallId", "title", "kind", "status", "content", "rawInput", "rawOutput"],
  stopReasons: ["end_turn", "cancelled", "max_tokens", "max_turn_requests", "refusal"],
  permissionOptionKinds: ["allow_once", "allow_always", "reject_once", "reject_always"],
} as const;
