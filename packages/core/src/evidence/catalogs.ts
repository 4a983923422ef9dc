/**
 * The tool catalogs a trace shows: what each server answered to `tools/list`, as the agent
 * (or client) saw it on the wire.
 */
import type { Trace, TraceMessage } from "./trace.js";

/** One tool as a server listed it. */
export interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** A server's catalog: every tool of every `tools/list` page its answers carried. */
export interface ToolCatalog {
  readonly server: string;
  /** The tools, by name, in the order first listed (a later listing of a name wins). */
  readonly tools: readonly ListedTool[];
  /** How many `tools/list` answers it was built from. */
  readonly listings: number;
}

const key = (message: TraceMessage, id: unknown): string =>
  `${message.connection}\u0000${JSON.stringify(id)}`;

/**
 * The tool catalog of each server in `trace` that answered `tools/list` at least once,
 * by server name. A server the trace never saw listed is absent (not an empty catalog).
 */
export function toolCatalogs(trace: Trace): Map<string, ToolCatalog> {
  const listRequests = new Set<string>();
  const byServer = new Map<string, { tools: Map<string, ListedTool>; listings: number }>();
  for (const entry of trace.messages) {
    const message = entry.message as Record<string, unknown> | undefined;
    if (!message || !("id" in message)) continue;
    if (entry.direction === "to_server" && message.method === "tools/list") {
      listRequests.add(key(entry, message.id));
      continue;
    }
    if (entry.direction !== "from_server" || !listRequests.has(key(entry, message.id))) continue;
    const result = message.result as { tools?: unknown } | undefined;
    if (!result || !Array.isArray(result.tools)) continue;
    const catalog = byServer.get(entry.server) ?? { tools: new Map(), listings: 0 };
    catalog.listings += 1;
    for (const tool of result.tools as unknown[]) {
      if (
        typeof tool === "object" &&
        tool !== null &&
        typeof (tool as ListedTool).name === "string"
      ) {
        catalog.tools.set((tool as ListedTool).name, tool as ListedTool);
      }
    }
    byServer.set(entry.server, catalog);
  }
  return new Map(
    [...byServer].map(([server, { tools, listings }]) => [
      server,
      { server, tools: [...tools.values()], listings },
    ]),
  );
}
