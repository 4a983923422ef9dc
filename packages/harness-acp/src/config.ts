import type { CapturedServer, ToolPolicy } from "@jest-m3/core/harness";
import type { McpServer } from "./protocol.js";

/**
 * The session's MCP servers as `session/new` takes them: exactly the captured relay
 * commands and proxy URLs (so every message crosses the wire capture), never the
 * originals. ACP gives a stdio server no working directory and agents pass their own
 * environment on; the relay takes care of both (it starts the server in its spec's folder,
 * with the allow-listed environment and its spec's variables only).
 */
export function sessionMcpServers(servers: readonly CapturedServer[]): McpServer[] {
  return servers.map((server): McpServer => {
    if (server.kind === "http") {
      return {
        type: "http",
        name: server.name,
        url: server.url,
        headers: Object.entries(server.headers).map(([name, value]) => ({ name, value })),
      };
    }
    return {
      name: server.name,
      command: server.command,
      args: [...server.args],
      env: Object.entries(server.env).map(([name, value]) => ({ name, value })),
    };
  });
}

/**
 * The tools of `server` the agent may offer the model, or undefined for all of them. A
 * server missing from the policy gets none.
 */
export function allowedTools(policy: ToolPolicy, server: string): readonly string[] | undefined {
  if (!policy.has(server)) return [];
  const allowed = policy.get(server);
  return allowed === undefined ? undefined : [...allowed].sort();
}
