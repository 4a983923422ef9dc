import {
  callOutcome,
  isJsonObject,
  isPolicyDenialMessage,
  reportedCall,
} from "@jest-m3/core/adapter-kit";
import type { ReportedToolCall, ToolCallStatus } from "@jest-m3/core/harness";
import { normalizeName } from "./config.js";
import { CLAUDE_NAMES } from "./errors.js";
import type { Json, ToolResultMeta, ToolUseMeta } from "./protocol.js";

/** Claude Code's tool for loading deferred tools: not an MCP call, never reported. */
export const TOOL_SEARCH = "ToolSearch";

/** Claude Code's tool result when a call was refused by its permission rules. */
export const PERMISSION_MESSAGE = /requested permissions to use|haven't granted it yet/;

/** Claude Code's tool result for a tool it does not offer (hidden by a deny rule). */
export const NO_SUCH_TOOL = /No such tool available/;

/** An MCP server and tool, as the session's servers name them. */
export interface McpToolName {
  readonly server: string;
  readonly tool: string;
}

/**
 * Maps Claude Code's `mcp__<server>__<tool>` back to the session's server and the MCP
 * tool. Claude Code's `tool_use_meta` (2.1.332) names the tool exactly; otherwise the
 * longest bound server whose normalized name prefixes the tool name wins. Undefined for a
 * built-in tool or a server that is not bound.
 */
export function mcpToolName(
  name: string,
  servers: readonly string[],
  meta?: ToolUseMeta,
): McpToolName | undefined {
  if (!name.startsWith("mcp__")) return undefined;
  const candidates = servers
    .filter((server) => name.startsWith(`mcp__${normalizeName(server)}__`))
    .sort((a, b) => b.length - a.length);
  const server =
    candidates.find((candidate) => candidate === meta?.server_display_name) ?? candidates[0];
  if (server === undefined) return undefined;
  const tool =
    typeof meta?.tool_name === "string" && meta.tool_name !== ""
      ? meta.tool_name
      : name.slice(`mcp__${normalizeName(server)}__`.length);
  return { server, tool };
}

/** One call as the stream showed it. */
export interface ObservedCall {
  readonly id: string;
  readonly name: McpToolName;
  readonly input: Json;
  readonly startedAt: number;
  /** The `tool_result` block, once it arrived. */
  result?: {
    readonly content: Json | undefined;
    readonly isError: boolean;
    readonly toolUseResult: Json | undefined;
    readonly meta: ToolResultMeta | undefined;
    readonly endedAt: number;
  };
  /** The adapter (answering `can_use_tool`) denied it. */
  deniedByAdapter?: boolean;
}

function textOf(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (isJsonObject(block) && typeof block.text === "string" ? block.text : ""))
      .join("\n");
  }
  return "";
}

/** The MCP-shaped result Claude Code reported: content blocks, structured content if any. */
function resultOf(
  content: Json | undefined,
  toolUseResult: Json | undefined,
): Record<string, unknown> {
  const blocks = Array.isArray(content)
    ? content
    : typeof content === "string"
      ? [{ type: "text", text: content }]
      : [];
  if (isJsonObject(toolUseResult) && toolUseResult.structuredContent != null) {
    return { content: blocks, structuredContent: toolUseResult.structuredContent };
  }
  return { content: blocks };
}

function failedStatus(call: ObservedCall, text: string, allowed: boolean): ToolCallStatus {
  const meta = call.result?.meta;
  if (call.deniedByAdapter) return "policy_denied";
  if (meta?.permission_decision?.decision === "reject") return "policy_denied";
  if (PERMISSION_MESSAGE.test(text) || isPolicyDenialMessage(text)) return "policy_denied";
  if (NO_SUCH_TOOL.test(text)) return allowed ? "tool_error" : "policy_denied";
  if (/interrupted|doesn't want to proceed/i.test(text)) return "cancelled";
  if (/connection closed|not connected|transport/i.test(text)) return "transport_error";
  if (/timed out|timeout/i.test(text)) return "timed_out";
  return "tool_error";
}

/**
 * Turns a `tool_use` block and its `tool_result` into a {@link ReportedToolCall}. An
 * `is_error` result is a tool error, unless Claude Code's permission rules, the adapter or
 * the wire capture refused the call (policy_denied). A call without a result is
 * `unfinished` (the turn was interrupted, the process died).
 */
export function reportedToolCall(
  call: ObservedCall,
  allowed: boolean,
  unfinished: { readonly status: ToolCallStatus; readonly reason: string },
): ReportedToolCall {
  const { result } = call;
  const { status, error } = callOutcome(
    CLAUDE_NAMES,
    result && { isError: result.isError, text: textOf(result.content) },
    unfinished,
    (text) => failedStatus(call, text, allowed),
  );
  return reportedCall(CLAUDE_NAMES, {
    id: call.id,
    server: call.name.server,
    tool: call.name.tool,
    arguments: call.input,
    result:
      result !== undefined && status !== "policy_denied"
        ? resultOf(result.content, result.toolUseResult)
        : undefined,
    status,
    error,
    startedAt: call.startedAt,
    endedAt: result?.endedAt,
  });
}
