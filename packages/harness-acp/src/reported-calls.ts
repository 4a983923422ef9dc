import {
  callOutcome,
  isJsonObject,
  isPolicyDenialMessage,
  parseToolName,
  reportedCall,
} from "@jest-m3/core/adapter-kit";
import type { ReportedToolCall, ToolCallStatus, ToolPolicy } from "@jest-m3/core/harness";
import type { AcpToolCallStatus, ToolCallContent } from "./protocol.js";
import type { ToolIdentity } from "./tool-names.js";

export type { ToolIdentity } from "./tool-names.js";

/** What an agent's protocol says about a call, before anything of its display text. */
export interface AgentToolCall {
  readonly toolCallId: string;
  readonly title?: string | null;
  /** ACP's tool kind (`read`, `edit`, `execute`, ..., `other`). */
  readonly kind?: string | null;
}

/** What a session knows to tell the MCP calls from the agent's own. */
export interface SessionTools {
  /** The session's server names. */
  readonly servers: readonly string[];
  /** Its allow-list. */
  readonly policy: ToolPolicy;
}

/** What the agent said about a tool call, merged over its `tool_call` and updates. */
export interface ObservedCall {
  readonly toolCallId: string;
  identity: ToolIdentity | undefined;
  title?: string;
  status?: AcpToolCallStatus;
  rawInput?: unknown;
  rawOutput?: unknown;
  content?: readonly ToolCallContent[];
  /** The arguments as the permission request showed them, when only it did. */
  permissionArguments?: Readonly<Record<string, unknown>>;
  /** True when the adapter refused this call's permission request. */
  declined?: boolean;
  /**
   * True when the call is of a tool outside the session's allow-list: if it failed, the
   * agent refused it (or the wire capture did), and the server never got it.
   */
  outsideAllowList?: boolean;
  /** When the adapter saw the call start and end (monotonic epoch ms). */
  startedAt?: number;
  endedAt?: number;
}

/**
 * True when ACP's `kind` lets a call be an MCP tool: agents give their own shell, file and
 * fetch tools a kind of their own (`execute`, `read`, `edit`, ...) and MCP tools `other`
 * (Gemini CLI, OpenCode) or none.
 */
export function mayBeMcpTool(call: AgentToolCall): boolean {
  return call.kind === undefined || call.kind === null || call.kind === "other";
}

/**
 * The MCP identity of a call of an agent whose naming the adapter does not know (the `acp`
 * harness): only from names the protocol carries (its `title` when it is a name, its id,
 * with an `__<model call id>` tail cut), and never for a call whose `kind` is an agent's own
 * (`execute`, `edit`, ...). Undefined for a tool of the agent's own.
 */
export function identifyCall(call: AgentToolCall, session: SessionTools): ToolIdentity | undefined {
  if (!mayBeMcpTool(call)) return undefined;
  const { servers } = session;
  if (call.title) {
    const byTitle = parseToolName(call.title, servers);
    if (byTitle) return byTitle;
  }
  const id = call.toolCallId;
  const cut = id.lastIndexOf("__");
  return (
    (cut > 0 ? parseToolName(id.slice(0, cut), servers) : undefined) ?? parseToolName(id, servers)
  );
}

/** The text of an ACP tool call's content, block by block. */
export function contentText(content: readonly ToolCallContent[] | undefined): string[] {
  const texts: string[] = [];
  for (const entry of content ?? []) {
    if (entry.type === "content" && entry.content.type === "text") texts.push(entry.content.text);
  }
  return texts;
}

/** Parses the JSON object a permission request shows as text, if it is one. */
export function argumentsFromText(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const DENIED =
  /denied by policy|rejected permission|canceled by the user|cancelled by the user|not allowed|permission denied|prevents you from using this specific tool call|tried to call unavailable tool/i;
const ABORTED = /abort|cancel/i;

function failedStatus(call: ObservedCall, text: string): ToolCallStatus {
  if (call.declined || call.outsideAllowList || DENIED.test(text) || isPolicyDenialMessage(text)) {
    return "policy_denied";
  }
  if (ABORTED.test(text)) return "cancelled";
  if (/timed out|timeout/i.test(text)) return "timed_out";
  if (/connection closed|transport|not connected|broken pipe/i.test(text)) return "transport_error";
  return "tool_error";
}

/**
 * Turns what an agent reported about one call into a {@link ReportedToolCall}, or
 * undefined for a call that was not an MCP tool of the session (an agent's own tool).
 * What the agent did not report stays unavailable, with the reason.
 */
export function reportedToolCall(
  call: ObservedCall,
  agent: string,
  unfinished: { readonly status: ToolCallStatus; readonly reason: string },
): ReportedToolCall | undefined {
  if (!call.identity) return undefined;
  const texts = contentText(call.content);
  const output = isJsonObject(call.rawOutput) ? call.rawOutput : undefined;
  if (typeof output?.output === "string" && texts.length === 0) texts.push(output.output);
  const text = texts.join("\n");
  // The kit's rule, with a call the adapter declined reported so before it was finished.
  const { status, error } = callOutcome(
    { agent },
    call.status === "completed" || call.status === "failed"
      ? { isError: call.status === "failed", text }
      : undefined,
    call.declined
      ? { status: "policy_denied", reason: "declined: not in the session's allow-list" }
      : unfinished,
    (failure) => failedStatus(call, failure),
  );
  const input = isJsonObject(call.rawInput) ? call.rawInput : undefined;
  return reportedCall(
    { agent },
    {
      id: call.toolCallId,
      server: call.identity.server,
      tool: call.identity.tool,
      arguments:
        input && (Object.keys(input).length > 0 || !call.permissionArguments)
          ? input
          : call.permissionArguments,
      result:
        call.status === "completed" && texts.length > 0
          ? { content: texts.map((entry) => ({ type: "text", text: entry })) }
          : undefined,
      status,
      error,
      startedAt: call.startedAt,
      endedAt: call.endedAt,
    },
  );
}
