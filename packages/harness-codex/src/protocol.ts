/**
 * The part of the `codex app-server` protocol this adapter speaks (JSON lines on stdio, no
 * `"jsonrpc"` field). Each name and field here is checked against the schema printed by the
 * installed binary (`codex app-server generate-json-schema`) by the contract test, so a
 * Codex upgrade that changes them fails loudly.
 */
import type { RpcMessage } from "@jest-m3/core/adapter-kit";

/** A JSON value as it arrives from the app-server. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** A request id: Codex numbers its own requests from 0, ours from 1. */
export type RequestId = number | string;

/** A JSON-RPC error as Codex sends it. */
export interface RpcErrorValue {
  readonly code: number;
  readonly message: string;
  readonly data?: Json;
}

/** `initialize` params. */
export interface InitializeParams {
  readonly clientInfo: { readonly name: string; readonly title: string; readonly version: string };
  readonly capabilities: { readonly experimentalApi: boolean };
}

/** How Codex asks before acting. The adapter uses `on-request` so MCP approvals reach it. */
export type ApprovalPolicy = "untrusted" | "on-request" | "never";

/** The sandbox of the agent's own commands (MCP servers run outside it). */
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

/** `thread/start` params. */
export interface ThreadStartParams {
  readonly cwd: string;
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandbox: SandboxMode;
  readonly model: string;
  readonly modelProvider?: string;
  readonly config: JsonObject;
  readonly ephemeral: boolean;
}

/** `thread/start` result (only the thread's id is read). */
export interface ThreadStartResult {
  readonly thread: { readonly id: string };
}

/** One input of a turn. Only text is sent. */
export interface TextInput {
  readonly type: "text";
  readonly text: string;
  readonly text_elements: readonly never[];
}

/** `turn/start` params. */
export interface TurnStartParams {
  readonly threadId: string;
  readonly input: readonly TextInput[];
}

/** `turn/start` result. */
export interface TurnStartResult {
  readonly turn: { readonly id: string };
}

/** `turn/interrupt` params. */
export interface TurnInterruptParams {
  readonly threadId: string;
  readonly turnId: string;
}

/** The requests this adapter sends, with their params and results. */
export interface ClientRequests {
  /** Its result is not read (the answer is what counts). */
  initialize: { params: InitializeParams; result: JsonObject };
  "thread/start": { params: ThreadStartParams; result: ThreadStartResult };
  "turn/start": { params: TurnStartParams; result: TurnStartResult };
  "turn/interrupt": { params: TurnInterruptParams; result: JsonObject };
  /** Stops the client's subscription to a thread (warm sessions, at close). */
  "thread/unsubscribe": { params: { threadId: string }; result: JsonObject };
}

/** A method this adapter requests. */
export type ClientMethod = keyof ClientRequests;

/** Status of an MCP server's startup, per thread. */
export type McpStartupState = "starting" | "ready" | "failed" | "cancelled";

/** `mcpServer/startupStatus/updated` params. */
export interface McpStartupStatus {
  readonly threadId?: string | null;
  readonly name: string;
  readonly status: McpStartupState;
  readonly error?: string | null;
}

/** A turn's error as Codex reports it. */
export interface TurnError {
  readonly message: string;
  readonly additionalDetails?: string | null;
  readonly codexErrorInfo?: Json;
}

/** The state a turn ended in. */
export type TurnStatus = "completed" | "interrupted" | "failed" | "inProgress";

/** `turn/completed` params. */
export interface TurnCompleted {
  readonly threadId: string;
  readonly turn: {
    readonly id: string;
    readonly status: TurnStatus;
    readonly error?: TurnError | null;
  };
}

/** `error` params: `willRetry: false` means the turn is about to fail with it. */
export interface ErrorNotificationParams {
  readonly threadId: string;
  readonly turnId: string;
  readonly willRetry: boolean;
  readonly error: TurnError;
}

/** An `mcpToolCall` thread item: Codex's report of one MCP tool call. */
export interface McpToolCallItem {
  readonly type: "mcpToolCall";
  /** The model's call id. */
  readonly id: string;
  readonly server: string;
  readonly tool: string;
  readonly status: "inProgress" | "completed" | "failed";
  readonly arguments: Json;
  readonly result?: {
    readonly content: Json[];
    readonly structuredContent?: Json;
    readonly _meta?: Json;
  } | null;
  readonly error?: { readonly message: string } | null;
  readonly startedAtMs?: number | null;
  readonly completedAtMs?: number | null;
}

/** An `agentMessage` thread item: text the agent said. */
export interface AgentMessageItem {
  readonly type: "agentMessage";
  readonly id: string;
  readonly text: string;
}

/** Any thread item (only the two above are read). */
export type ThreadItem =
  McpToolCallItem | AgentMessageItem | { readonly type: string; readonly id: string };

/** `item/started` and `item/completed` params. */
export interface ItemNotificationParams {
  readonly threadId: string;
  readonly turnId: string;
  readonly item: ThreadItem;
}

/** A notification from the app-server (the kit's JSON-RPC message). */
export type ServerNotification = RpcMessage;

/** A request from the app-server to this client (an approval, a question). */
export type ServerRequest = RpcMessage & { readonly id: RequestId };

/**
 * `mcpServer/elicitation/request` params: an MCP server's own elicitation (form or URL
 * mode), or Codex's tool-call approval (`_meta.codex_approval_kind: "mcp_tool_call"`).
 */
export interface ElicitationRequestParams {
  readonly threadId: string;
  readonly turnId?: string | null;
  readonly serverName: string;
  readonly mode?: "form" | "url";
  readonly message?: string;
  /** Form mode: the schema of the fields the server asks for. */
  readonly requestedSchema?: { readonly [key: string]: Json } | null;
  /** URL mode: the page to open, and the server's id for the elicitation. */
  readonly url?: string | null;
  readonly elicitationId?: string | null;
  readonly _meta?: {
    readonly codex_approval_kind?: string;
    readonly tool_name?: string;
    readonly tool_params?: Json;
  } | null;
}

/** The answer to `mcpServer/elicitation/request`. */
export interface ElicitationResponse {
  readonly action: "accept" | "decline" | "cancel";
  /** The form's values for `accept` (what reaches the MCP server); null otherwise. */
  readonly content: { readonly [key: string]: Json } | null;
  readonly _meta: null;
}

/** The methods and notifications the adapter depends on, for the contract test. */
export const PROTOCOL_SURFACE = {
  clientRequests: [
    "initialize",
    "thread/start",
    "turn/start",
    "turn/interrupt",
    "thread/unsubscribe",
  ],
  clientNotifications: ["initialized"],
  serverNotifications: [
    "mcpServer/startupStatus/updated",
    "turn/started",
    "turn/completed",
    "item/started",
    "item/completed",
    "error",
    "warning",
    "configWarning",
  ],
  serverRequests: [
    "mcpServer/elicitation/request",
    "item/commandExecution/requestApproval",
    "item/fileChange/requestApproval",
    "item/permissions/requestApproval",
    "item/tool/requestUserInput",
    "applyPatchApproval",
    "execCommandApproval",
  ],
} as const;
