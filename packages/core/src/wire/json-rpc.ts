import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A line parsed as JSON-RPC, or the reason it is not JSON-RPC. */
export type ParsedLine =
  | { readonly ok: true; readonly message: JSONRPCMessage }
  | { readonly ok: false; readonly problem: string };

/** Parses one line of a stdio MCP stream. */
export function parseJsonRpcLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: "JSON, but not a JSON-RPC 2.0 message" };
  // Keep the value as sent: the schema's output may drop fields it does not know.
  return { ok: true, message: value as JSONRPCMessage };
}

/** A payload parsed as JSON once, to hand to everything that reads it. */
export type JsonText =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error };

/** Parses `text` as JSON, keeping the error instead of throwing it. */
export function parseJsonText(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/** The JSON-RPC messages of a payload already parsed: a batch gives one entry per element. */
export function messagesOf(json: JsonText): ParsedLine[] {
  if (!json.ok) return [{ ok: false, problem: `not JSON (${json.error.message})` }];
  const items = Array.isArray(json.value) ? json.value : [json.value];
  return items.map((item): ParsedLine => {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    return parsed.success
      ? { ok: true, message: item as JSONRPCMessage }
      : { ok: false, problem: "JSON, but not a JSON-RPC 2.0 message" };
  });
}

/**
 * Parses one payload (a stdio line, an HTTP body, an SSE data field) into its messages: a
 * JSON-RPC batch gives one entry per element.
 */
export function parseJsonRpcPayload(text: string): ParsedLine[] {
  return messagesOf(parseJsonText(text));
}
