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
