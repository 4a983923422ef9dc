import {
  callOutcome,
  identifyFlattened,
  isJsonObject,
  isPolicyDenialMessage,
  plainToolName,
  sanitizeName,
  type ToolIdentity,
  type ToolNaming,
} from "@jest-m3/core/adapter-kit";
import { unavailable, type ReportedToolCall, type ToolCallStatus } from "@jest-m3/core/harness";
import type { ContentPart, Json } from "./protocol.js";

/** Pi's tool result when the model called a tool it does not have. */
export const NO_SUCH_TOOL = /Tool .* not found|not found in the registered tools|Unknown tool/i;

/** An MCP server and tool, as the session's servers name them. */
export type McpToolName = ToolIdentity;

/** How the bridge names an MCP tool when no name of its own list fits (the kit's plainToolName). */
const PI_NAMING: ToolNaming = {
  agent: "Pi",
  rule: "mcp__<server>__<tool>, other characters as _",
  name: plainToolName,
  prefix: (server) => `mcp__${sanitizeName(server)}__`,
};

/**
 * Maps a tool name Pi reports back to the session's server and the MCP tool: the bridge's
 * own names first, else `mcp__<server>__<tool>` with the longest bound server. Undefined
 * for Pi's own tools (`read`, `bash`, ...) and names of no bound server.
 */
export function mcpToolName(
  name: string,
  offered: ReadonlyMap<string, McpToolName>,
  servers: readonly string[],
): McpToolName | undefined {
  return offered.get(name) ?? identifyFlattened(PI_NAMING, name, servers, new Map());
}

/** One call as Pi's events showed it. */
export interface ObservedCall {
  /** The model's call id (Pi's `toolCallId`). */
  readonly id: string;
  readonly name: McpToolName;
  readonly args: Json;
  readonly startedAt: number;
  /** `tool_execution_end`, once it arrived. */
  result?: {
    readonly content: readonly ContentPart[];
    readonly details: Json | undefined;
    readonly isError: boolean;
    readonly endedAt: number;
  };
}

function textOf(content: readonly ContentPart[]): string {
  return content
    .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : ""))
    .filter(Boolean)
    .join("\n");
}

function failedStatus(text: string, allowed: boolean): ToolCallStatus {
  if (isPolicyDenialMessage(text)) return "policy_denied";
  if (NO_SUCH_TOOL.test(text)) return allowed ? "tool_error" : "policy_denied";
  if (/AbortError|aborted/i.test(text)) return "cancelled";
  if (/timed out|timeout/i.test(text)) return "timed_out";
  if (/connection closed|not connected/i.test(text)) return "transport_error";
  return "tool_error";
}

/**
 * Turns a call's `tool_execution_start` and `tool_execution_end` into a
 * {@link ReportedToolCall}, by the kit's status rule (`callOutcome`). An error result is a
 * tool error, unless the wire capture refused the call or the tool was not offered
 * (policy_denied), the call was aborted (cancelled) or timed out. A call without a result
 * is `unfinished` (an interrupted turn, a dead Pi).
 */
export function reportedToolCall(
  call: ObservedCall,
  allowed: boolean,
  unfinished: { readonly status: ToolCallStatus; readonly reason: string },
): ReportedToolCall {
  const { result } = call;
  const { status, error } = callOutcome(
    { agent: "Pi" },
    result && { isError: result.isError, text: textOf(result.content) },
    unfinished,
    (text) => failedStatus(text, allowed),
  );
  const details = isJsonObject(result?.details) ? result.details : undefined;
  const structured = details?.structuredContent;
  // The server's own content (the bridge keeps it in details), else what the model got.
  const content = Array.isArray(details?.content) ? details.content : result?.content;
  return {
    id: call.id,
    server: call.name.server,
    tool: call.name.tool,
    arguments: isJsonObject(call.args)
      ? call.args
      : unavailable(
          `Pi reported the arguments as ${JSON.stringify(call.args ?? null).slice(0, 80)}, not an object`,
        ),
    result:
      result !== undefined && status !== "policy_denied"
        ? {
            content,
            ...(result.isError ? { isError: true } : {}),
            ...(structured !== undefined && structured !== null
              ? { structuredContent: structured }
              : {}),
          }
        : unavailable(error !== undefined ? `no result: ${error}` : "Pi reported no result"),
    status,
    ...(error !== undefined ? { error } : {}),
    startedAt: call.startedAt,
    ...(result !== undefined ? { endedAt: result.endedAt } : {}),
  };
}
