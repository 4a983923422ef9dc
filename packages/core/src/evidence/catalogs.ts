/**
 * The tool catalogs a trace shows: what each server answered to `tools/list`, as the agent
 * (or client) saw it on the wire.
 */
import type { TraceMessage } from "./trace.js";

/** One tool as a server listed it. */
export interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** A server's catalog: every tool of its last complete `tools/list` (all pages). */
export interface ToolCatalog {
  readonly server: string;
  /** The tools, by name, in the order listed. */
  readonly tools: readonly ListedTool[];
}

interface ListBody {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly cursor?: unknown };
  readonly result?: { readonly tools?: unknown; readonly nextCursor?: unknown };
}

/**
 * The tool catalog of each server in `messages` that finished a `tools/list` (its last
 * page, without `nextCursor`), by server name; pages are merged, and a server listed more
 * than once keeps its last complete listing. A server never seen listed is absent (not an
 * empty catalog).
 */
export function toolCatalogs(messages: readonly TraceMessage[]): Map<string, ToolCatalog> {
  const requests = new Set<string>();
  const key = (message: TraceMessage, id: unknown): string =>
    `${message.server}\u0000${message.connection}\u0000${typeof id}:${String(id)}`;
  const building = new Map<string, Map<string, ListedTool>>();
  const finished = new Map<string, ToolCatalog>();
  for (const message of messages) {
    const body = message.message as ListBody | undefined;
    if (!body) continue;
    if (message.direction === "to_server" && body.method === "tools/list") {
      requests.add(key(message, body.id));
      if (body.params?.cursor === undefined) building.set(message.server, new Map());
      continue;
    }
    if (message.direction !== "from_server" || !requests.has(key(message, body.id))) continue;
    const result = body.result;
    if (!result || !Array.isArray(result.tools)) continue;
    const tools = building.get(message.server) ?? new Map<string, ListedTool>();
    for (const tool of result.tools as unknown[]) {
      const listed = tool as ListedTool | null;
      if (typeof listed === "object" && listed !== null && typeof listed.name === "string") {
        tools.set(listed.name, listed);
      }
    }
    building.set(message.server, tools);
    if (typeof result.nextCursor !== "string") {
      finished.set(message.server, { server: message.server, tools: [...tools.values()] });
    }
  }
  return finished;
}
