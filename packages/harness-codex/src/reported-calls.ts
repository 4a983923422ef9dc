import { isPolicyDenialMessage, reportedCall } from "@jest-m3/core/adapter-kit";
import type { ReportedToolCall, ToolCallStatus } from "@jest-m3/core/harness";
import { CODEX_NAMES } from "./errors.js";
import type { McpToolCallItem } from "./protocol.js";

/** What the session knows about a call besides Codex's item. */
export interface CallContext {
  /** True when the adapter declined this call's approval. */
  readonly declined: boolean;
  /** When the adapter saw the call start and end (monotonic epoch ms). */
  readonly observedStart?: number;
  readonly observedEnd?: number;
  /** For a call Codex never completed: why (the turn was interrupted, the process died). */
  readonly unfinished?: { readonly status: ToolCallStatus; readonly reason: string };
}

function failedStatus(item: McpToolCallItem, declined: boolean): ToolCallStatus {
  const message = item.error?.message ?? "";
  if (declined || isPolicyDenialMessage(message)) return "policy_denied";
  if (message === "" && item.result) return "tool_error"; // the tool answered isError: true
  if (/transport closed|connection closed|broken pipe/i.test(message)) return "transport_error";
  if (/timed out|timeout/i.test(message)) return "timed_out";
  return "tool_error";
}

/**
 * Turns Codex's `mcpToolCall` item into a {@link ReportedToolCall}. Codex reports a tool's
 * `isError: true` result as status `failed` with the result kept, a declined approval as
 * `failed` with "user rejected MCP tool call", and a call the wire capture refused as
 * `failed` with the capture's error. What Codex did not report stays unavailable.
 */
export function reportedToolCall(item: McpToolCallItem, context: CallContext): ReportedToolCall {
  let status: ToolCallStatus;
  let error: string | undefined = item.error?.message ?? undefined;
  if (item.status === "completed") status = "success";
  else if (item.status === "failed") status = failedStatus(item, context.declined);
  else {
    status = context.unfinished?.status ?? "incomplete";
    error ??= context.unfinished?.reason ?? "Codex never reported the end of this call";
  }
  if (status === "policy_denied" && error === undefined) {
    error = "declined by the session's tool policy";
  }
  const result = item.result;
  const startedAt = item.startedAtMs ?? context.observedStart;
  const endedAt = item.completedAtMs ?? context.observedEnd;
  return reportedCall(CODEX_NAMES, {
    id: item.id,
    server: item.server,
    tool: item.tool,
    arguments: item.arguments,
    result: result
      ? {
          content: result.content,
          ...(result.structuredContent != null
            ? { structuredContent: result.structuredContent }
            : {}),
          ...(result._meta != null ? { _meta: result._meta } : {}),
        }
      : undefined,
    status,
    error,
    startedAt: typeof startedAt === "number" ? startedAt : undefined,
    endedAt: typeof endedAt === "number" && item.status !== "inProgress" ? endedAt : undefined,
  });
}
