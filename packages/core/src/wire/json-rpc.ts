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

/**
 * Parses one payload (a stdio line, an HTTP body, an SSE data field) into its messages: a
 * JSON-RPC batch gives one entry per element.
 */
export function parseJsonRpcPayload(text: string): ParsedLine[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [{ ok: false, problem: `not JSON (${(error as Error).message})` }];
  }
  const items = Array.isArray(value) ? value : [value];
  return items.map((item): ParsedLine => {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    return parsed.success
      ? { ok: true, message: item as JSONRPCMessage }
      : { ok: false, problem: "JSON, but not a JSON-RPC 2.0 message" };
  });
}
