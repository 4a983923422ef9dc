import { throwUsage } from "../format/messages.js";
import type { M3MatcherContext } from "./context.js";

/** A tool result (from `callTool()`), or anything with MCP content blocks. */
export interface ToolResultLike {
  readonly content: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** True for a tool result: an object with a `content` array. */
export function isToolResult(value: unknown): value is ToolResultLike {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  );
}

/** The text parts of content blocks, joined by newlines. */
export function textOfContent(content: readonly unknown[]): string {
  return content
    .filter(
      (part): part is { type: "text"; text: string } =>
        typeof part === "object" &&
        part !== null &&
        (part as { type?: unknown }).type === "text" &&
        typeof (part as { text?: unknown }).text === "string",
    )
    .map((part) => part.text)
    .join("\n");
}

/** `\n\nTool error: <text>` for a tool result that is an error, so its cause is in sight. */
export function toolErrorSection(received: unknown): string {
  if (!isToolResult(received) || received.isError !== true) return "";
  return `\n\nThe tool returned an error:\n  ${textOfContent(received.content).split("\n").join("\n  ")}`;
}

/**
 * The text of a turn's reply (`response.text`) or of a tool result (its text content,
 * joined by newlines). A wrong subject is a usage error.
 */
export function textOf(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
): string | null {
  if (typeof received === "object" && received !== null) {
    if ("snapshot" in received && "response" in received) {
      const response = (received as { response: { text: string } | null }).response;
      return response?.text ?? null;
    }
    if (isToolResult(received)) return textOfContent(received.content);
  }
  return throwUsage(
    context,
    matcher,
    `${context.utils.RECEIVED_COLOR("received")} value must be a TurnResult (from send()) or a tool result (from callTool())`,
    { value: received },
  );
}
