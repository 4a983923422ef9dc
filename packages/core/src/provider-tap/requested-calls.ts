/**
 * The calls the model asked for, set against what the wire saw reach each server: a call
 * the model asked for that the agent never sent on (it refused it, failed it, or lost it)
 * is visible as one without a wire call.
 */
import { isDeepStrictEqual } from "node:util";
import { toolCatalogs } from "../evidence/catalogs.js";
import type { ExecutionResult } from "../evidence/results.js";
import type { ToolCall } from "../evidence/trace.js";
import type { ModelToolCall } from "./records.js";
import { catalogCost } from "./usage.js";

/** One call the model asked for, and the wire call it became (or null). */
export interface RequestedCall {
  /** The model request whose answer asked for it. */
  readonly requestId: string;
  readonly turnId: string | null;
  readonly call: ModelToolCall;
  /** The MCP server and tool it names, or null when it names no server's tool (a built-in). */
  readonly server: string | null;
  readonly tool: string | null;
  /**
   * The wire call of the same turn, server, tool and arguments that reached the server's
   * relay (whatever its status), or null when none did.
   */
  readonly wire: ToolCall | null;
}

/**
 * Every tool call the model asked for in `result`, each paired with the wire call it became.
 * A call to an MCP tool with `wire: null` never reached the server.
 *
 * @example
 * ```ts
 * const lost = requestedCalls(session.result).filter((c) => c.server !== null && c.wire === null);
 * ```
 */
export function requestedCalls(result: ExecutionResult): RequestedCall[] {
  const catalogs: Record<string, string[]> = {};
  for (const [server, catalog] of toolCatalogs(result.trace.messages)) {
    catalogs[server] = catalog.tools.map((tool) => tool.name);
  }
  const used = new Set<string>();
  const wireCalls = result.trace.toolCalls.filter((call) => call.evidence !== "reported");
  const out: RequestedCall[] = [];
  for (const request of result.modelRequests ?? []) {
    for (const call of request.toolCalls) {
      const probe = catalogCost(
        [
          {
            ...request,
            request: {
              ...request.request,
              tools: [
                {
                  name: call.name,
                  namespace: call.namespace,
                  descriptionBytes: 0,
                  schemaBytes: 0,
                  bytes: 0,
                  estimatedTokens: 0,
                  offeredBy: "tools",
                },
              ],
            },
          },
        ],
        catalogs,
      ).servers.find((server) => server.tools.length > 0);
      const server = probe?.server ?? null;
      const names = server === null ? [] : (catalogs[server] ?? []);
      const tool =
        server === null
          ? null
          : (names.find((name) => call.name === name || call.name.endsWith(name)) ?? call.name);
      const wire =
        server === null
          ? undefined
          : wireCalls.find(
              (candidate) =>
                !used.has(candidate.id) &&
                candidate.turnId === request.turnId &&
                candidate.server === server &&
                candidate.tool === tool &&
                isDeepStrictEqual(candidate.arguments, call.arguments),
            );
      if (wire) used.add(wire.id);
      out.push({
        requestId: request.id,
        turnId: request.turnId,
        call,
        server,
        tool,
        wire: wire ?? null,
      });
    }
  }
  return out;
}
