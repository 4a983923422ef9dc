/**
 * The bridge's side of an MCP bridge (see mcp-bridge.ts), run inside the agent's process by
 * the extension an adapter ships: it connects, with the MCP SDK's client, to every server
 * of a {@link BridgeConfig}, lists their tools, names the allowed ones, and gives the
 * extension each as a {@link BridgedTool} to register with its agent; then writes the
 * status file the adapter reads. A stdio server gets its own environment and the SDK's
 * safe defaults (PATH, HOME, ...), never the agent's: the agent's credentials never reach it.
 *
 * @example
 * ```ts
 * const bridge = await connectBridge(config);
 * for (const tool of bridge.tools) agent.registerTool(tool.name, tool.inputSchema, (args, signal) => tool.call(args, signal));
 * bridge.report(); // the status file, once the tools exist
 * ```
 */
import { randomUUID } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  assignToolNames,
  type BridgeConfig,
  type BridgeServer,
  type BridgeServerStatus,
} from "./mcp-bridge.js";
import type { ToolIdentity } from "./tool-names.js";

/** One allowed MCP tool, as the extension registers it with its agent. */
export interface BridgedTool extends ToolIdentity {
  /** The model-facing name ({@link assignToolNames}). */
  readonly name: string;
  readonly description: string;
  /** The server's input schema, unchanged (JSON Schema). */
  readonly inputSchema: unknown;
  /** Calls the tool on its server (the config's tool timeout, reset on progress). */
  call(args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
}

/** The servers a bridge connected for one session. */
export interface Bridge {
  /** Every allowed tool of every connected server. */
  readonly tools: readonly BridgedTool[];
  /** Writes the status file (call it once the tools are registered). */
  report(): void;
  /** Closes every client (and so every stdio server). */
  close(): Promise<void>;
}

interface Listed {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
}

const STDERR_LIMIT = 4000;

function transportFor(server: BridgeServer, stderr: { text: string }): Transport {
  if (server.kind === "http") {
    return new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { ...server.headers } },
    });
  }
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env: { ...server.env },
    cwd: server.cwd,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer | string) => {
    stderr.text = (stderr.text + String(chunk)).slice(-STDERR_LIMIT);
  });
  return transport;
}

async function connect(
  server: BridgeServer,
  config: BridgeConfig,
): Promise<{ client: Client; tools: Listed[] } | BridgeServerStatus> {
  const stderr = { text: "" };
  const client = new Client({ name: "jest-m3-bridge", version: "0.1.0" });
  try {
    await client.connect(transportFor(server, stderr), { timeout: config.startupTimeoutMs });
    const tools: Listed[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: config.startupTimeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { client, tools };
  } catch (error) {
    await client.close().catch(() => undefined);
    // Give the server's last words a moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const message = error instanceof Error ? error.message : String(error);
    return { status: "failed", error: message, stderr: stderr.text.trim() };
  }
}

function allowed(config: BridgeConfig, server: string, tool: string): boolean {
  if (!Object.prototype.hasOwnProperty.call(config.allow, server)) return false;
  const tools = config.allow[server];
  return tools === null || (tools !== undefined && tools.includes(tool));
}

/**
 * Connects every server of `config` (at once), and names the allowed tools of those that
 * connected; a server that failed is in the status with its error and stderr, and offers
 * nothing.
 */
export async function connectBridge(config: BridgeConfig): Promise<Bridge> {
  const results = await Promise.all(config.servers.map((server) => connect(server, config)));
  const statuses: Record<string, BridgeServerStatus> = {};
  const clients = new Map<string, { client: Client; tools: Listed[] }>();
  results.forEach((result, index) => {
    const name = config.servers[index]?.name ?? String(index);
    if ("status" in result) statuses[name] = result;
    else clients.set(name, result);
  });
  const names = assignToolNames(
    [...clients].flatMap(([server, { tools }]) =>
      tools
        .filter((tool) => allowed(config, server, tool.name))
        .map(({ name: tool }) => ({ server, tool })),
    ),
  );
  const tools: BridgedTool[] = [];
  for (const [server, { client, tools: listed }] of clients) {
    const offered: Record<string, string> = {};
    for (const [name, identity] of names) {
      if (identity.server !== server) continue;
      offered[name] = identity.tool;
      const definition = listed.find((tool) => tool.name === identity.tool);
      tools.push({
        ...identity,
        name,
        description:
          definition?.description ?? `The MCP tool ${identity.tool} of the server ${server}.`,
        inputSchema: definition?.inputSchema ?? { type: "object", properties: {} },
        call: async (args, signal) =>
          (await client.callTool({ name: identity.tool, arguments: args }, undefined, {
            ...(signal ? { signal } : {}),
            timeout: config.toolTimeoutMs,
            resetTimeoutOnProgress: true,
          })) as Record<string, unknown>,
      });
    }
    statuses[server] = { status: "connected", tools: listed.map((tool) => tool.name), offered };
  }
  return {
    tools,
    report: () => {
      const temporary = `${config.statusFile}.${randomUUID()}.tmp`;
      writeFileSync(temporary, JSON.stringify({ servers: statuses }), { mode: 0o600 });
      renameSync(temporary, config.statusFile);
    },
    close: async () => {
      await Promise.all(
        [...clients.values()].map(({ client }) => client.close().catch(() => undefined)),
      );
    },
  };
}

/**
 * The bridge's configuration from the environment variable `variable`, which is removed at
 * once (the agent's tools and their children never see the servers' environments), or
 * undefined when it is not set.
 */
export function takeBridgeConfig(variable: string): BridgeConfig | undefined {
  const text = process.env[variable];
  delete process.env[variable];
  if (text === undefined || text === "") return undefined;
  return JSON.parse(text) as BridgeConfig;
}
