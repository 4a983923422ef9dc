import { join } from "node:path";
import type { CapturedServer, ToolPolicy } from "@jest-m3/core/harness";
import type { McpServer } from "./protocol.js";

/** The shim that starts a stdio server in its own folder (see `server-cwd.ts`). */
export const SERVER_CWD_PATH = join(__dirname, "server-cwd.js");

/**
 * The session's MCP servers as `session/new` takes them: exactly the captured relay
 * commands and proxy URLs (so every message crosses the wire capture), never the
 * originals. A stdio server starts in its own folder through a small shim, since ACP gives
 * it none; its variables go as given, and each of `blank` (the agent's credentials, which
 * agents pass on to the servers they start) is set empty unless the server sets it.
 */
export function sessionMcpServers(
  servers: readonly CapturedServer[],
  blank: readonly string[] = [],
): McpServer[] {
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
      command: process.execPath,
      args: [SERVER_CWD_PATH, server.cwd, server.command, ...server.args],
      env: [
        ...blank.filter((name) => !(name in server.env)).map((name) => ({ name, value: "" })),
        ...Object.entries(server.env).map(([name, value]) => ({ name, value })),
      ],
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
