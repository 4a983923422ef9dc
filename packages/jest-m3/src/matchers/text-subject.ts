import type { M3MatcherContext } from "./context.js";

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
    const content = (received as { content?: unknown }).content;
    if (Array.isArray(content)) {
      return content
        .filter(
          (part): part is { type: "text"; text: string } =>
            part?.type === "text" && typeof part.text === "string",
        )
        .map((part) => part.text)
        .join("\n");
    }
  }
  throw new Error(
    context.utils.matcherErrorMessage(
      context.utils.matcherHint(matcher, undefined, undefined, { isNot: context.isNot }),
      `${context.utils.RECEIVED_COLOR("received")} value must be a TurnResult (from send()) or a tool result (from callTool())`,
      context.utils.printWithType("Received", received, context.utils.printReceived),
    ),
  );
}
