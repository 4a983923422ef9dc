/** Tool calls as the wire recorded them, made up for the query and correlation tests. */
import type { ToolCall } from "@jest-m3/core";

/**
 * A maker of successful wire calls numbered from 1 (`call-<n>`, JSON-RPC id n): `base(n)`
 * gives the fields a test's calls share (turn, server, connection, result, timings), `extra`
 * one call's own.
 */
export function wireCalls(
  base: (n: number) => Partial<ToolCall>,
): (tool: string, args: Record<string, unknown>, extra?: Partial<ToolCall>) => ToolCall {
  let made = 0;
  return (tool, args, extra = {}) => {
    made++;
    return {
      id: `call-${made}`,
      turnId: "t1",
      server: "shipping",
      connection: "relay-1",
      tool,
      arguments: args,
      result: { content: [{ type: "text", text: "ok" }] },
      error: null,
      status: "success",
      evidence: "wire",
      jsonrpcId: made,
      startedAt: 1000 + made,
      endedAt: 1010 + made,
      latencyMs: 9,
      ...base(made),
      ...extra,
    };
  };
}
