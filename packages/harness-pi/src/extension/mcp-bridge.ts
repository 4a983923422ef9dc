/**
 * The Pi extension that gives Pi the session's MCP servers. Pi loads it with `--extension`
 * and awaits it before its session starts, so every tool exists before the first prompt. It
 * connects, with the MCP SDK's client, to exactly the servers the adapter passes (the wire
 * capture's relays and proxies, so the capture sees every message), registers each tool the
 * allow-list lets through under the name {@link assignToolNames} gives it (no other tool is
 * ever offered), and writes which servers connected to the status file the adapter reads.
 * A warm Pi (one process for one session after another) is started without servers and
 * given each session's by the bridge's command ({@link BRIDGE_COMMAND}); Pi's `new_session`
 * reloads the extension, whose `session_shutdown` closes the session's clients first.
 * It runs inside Pi's process (Pi's Node), and imports nothing from jest-m3 but the
 * names it shares with the adapter.
 */
import { randomUUID } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  BRIDGE_COMMAND,
  BRIDGE_CONFIG_VARIABLE,
  type BridgeConfig,
  type BridgeDetails,
  type BridgeServer,
  type BridgeServerStatus,
} from "../bridge-config.js";
import { assignToolNames, type McpToolName } from "../tool-names.js";

/** A content part Pi accepts in a tool result. */
type PiContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** The part of Pi's `ExtensionAPI` the bridge uses (Pi's own types are not a dependency). */
export interface PiExtensionApi {
  registerTool(tool: {
    name: string;
    label: string;
    description: string;
    parameters: unknown;
    execute(
      toolCallId: string,
      params: Record<string, unknown>,
      signal: AbortSignal | undefined,
    ): Promise<{ content: PiContent[]; details: BridgeDetails }>;
  }): void;
  registerCommand(
    name: string,
    command: { description: string; handler: (args: string) => Promise<void> },
  ): void;
  on(event: "session_shutdown", handler: () => Promise<void>): unknown;
}

interface Connected {
  readonly server: BridgeServer;
  readonly client: Client;
  readonly tools: readonly {
    readonly name: string;
    readonly description?: string | undefined;
    readonly inputSchema: unknown;
  }[];
}

const STDERR_LIMIT = 4000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function transportFor(server: BridgeServer, stderr: { text: string }): Transport {
  if (server.kind === "http") {
    return new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { ...server.headers } },
    });
  }
  // The SDK adds only its safe defaults (PATH, HOME, USER, ...) to the server's own
  // environment: Pi's credentials never reach the server.
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
): Promise<{ connected: Connected } | { failed: BridgeServerStatus }> {
  const stderr = { text: "" };
  const client = new Client({ name: "jest-m3-pi-bridge", version: "0.1.0" });
  try {
    await client.connect(transportFor(server, stderr), { timeout: config.startupTimeoutMs });
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: config.startupTimeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { connected: { server, client, tools } };
  } catch (error) {
    await client.close().catch(() => undefined);
    // Give the server's last words a moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { failed: { status: "failed", error: message(error), stderr: stderr.text.trim() } };
  }
}

function allowed(config: BridgeConfig, server: string, tool: string): boolean {
  if (!Object.prototype.hasOwnProperty.call(config.allow, server)) return false;
  const tools = config.allow[server];
  return tools === null || (tools !== undefined && tools.includes(tool));
}

/**
 * An MCP result as Pi's tool content (what the model sees): text and images kept, anything
 * else as JSON text. A result with structured content gives the model that, as JSON text
 * (as Codex does), with its images: Pi joins text parts into one string, so the server's
 * summary line next to the JSON would leave the model no JSON to read.
 */
function piContent(result: Record<string, unknown>): PiContent[] {
  const content: PiContent[] = [];
  const parts = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const structured = result.structuredContent != null;
  if (structured) content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  for (const part of parts) {
    if (part.type === "text" && typeof part.text === "string") {
      if (!structured) content.push({ type: "text", text: part.text });
    } else if (
      part.type === "image" &&
      typeof part.data === "string" &&
      typeof part.mimeType === "string"
    ) {
      content.push({ type: "image", data: part.data, mimeType: part.mimeType });
    } else if (!structured) {
      content.push({ type: "text", text: JSON.stringify(part) });
    }
  }
  return content;
}

function writeStatus(file: string, servers: Record<string, BridgeServerStatus>): void {
  const temporary = `${file}.${randomUUID()}.tmp`;
  writeFileSync(temporary, JSON.stringify({ servers }), { mode: 0o600 });
  renameSync(temporary, file);
}

/** The configuration Pi was started with, or undefined (a warm Pi, or a reload). */
function readConfig(): BridgeConfig | undefined {
  const text = process.env[BRIDGE_CONFIG_VARIABLE];
  // Read once and removed: Pi's tools (bash) and its children never see the servers' env.
  delete process.env[BRIDGE_CONFIG_VARIABLE];
  if (text === undefined || text === "") return undefined;
  return JSON.parse(text) as BridgeConfig;
}

/**
 * The extension's factory: binds the servers Pi was started with, if any, and offers the
 * command that binds a warm session's; closes every client when Pi's session shuts down
 * (Pi's exit, or `new_session` before it reloads the extension).
 */
export default async function mcpBridge(pi: PiExtensionApi): Promise<void> {
  const connected: Connected[] = [];
  let bound = false;
  pi.on("session_shutdown", async () => {
    await Promise.all(
      connected.splice(0).map(({ client }) => client.close().catch(() => undefined)),
    );
  });
  pi.registerCommand(BRIDGE_COMMAND, {
    description: "jest-m3: connect this session's MCP servers (sent by the adapter)",
    handler: async (args) => {
      if (bound) throw new Error("the jest-m3 MCP bridge already bound this session's servers");
      bound = true;
      await bind(pi, JSON.parse(args) as BridgeConfig, connected);
    },
  });
  const config = readConfig();
  if (config) {
    bound = true;
    await bind(pi, config, connected);
  }
}

/**
 * Connects every server of `config`, registers the allowed tools, and writes the status
 * file; the clients go to `connected` (closed when the session shuts down).
 */
async function bind(pi: PiExtensionApi, config: BridgeConfig, connected: Connected[]) {
  const results = await Promise.all(config.servers.map((server) => connect(server, config)));
  const statuses: Record<string, BridgeServerStatus> = {};
  results.forEach((result, index) => {
    const name = config.servers[index]?.name ?? String(index);
    if ("failed" in result) statuses[name] = result.failed;
    else connected.push(result.connected);
  });
  const offered: McpToolName[] = connected.flatMap(({ server, tools }) =>
    tools
      .filter((tool) => allowed(config, server.name, tool.name))
      .map((tool) => ({
        server: server.name,
        tool: tool.name,
      })),
  );
  const names = assignToolNames(offered);
  for (const entry of connected) {
    const mine: Record<string, string> = {};
    for (const [piName, { server, tool }] of names) {
      if (server !== entry.server.name) continue;
      mine[piName] = tool;
      const definition = entry.tools.find((candidate) => candidate.name === tool);
      pi.registerTool({
        name: piName,
        label: `${server}:${tool}`,
        description: definition?.description ?? `The MCP tool ${tool} of the server ${server}.`,
        // Pi validates raw JSON Schema as well as TypeBox: the server's schema goes through.
        parameters: definition?.inputSchema ?? { type: "object", properties: {} },
        async execute(_toolCallId, params, signal) {
          const result = (await entry.client.callTool(
            { name: tool, arguments: params },
            undefined,
            {
              ...(signal ? { signal } : {}),
              timeout: config.toolTimeoutMs,
              resetTimeoutOnProgress: true,
            },
          )) as Record<string, unknown>;
          const content = piContent(result);
          // Pi marks a result as an error only when the tool throws.
          if (result.isError === true) {
            throw new Error(
              content.map((part) => (part.type === "text" ? part.text : "")).join("\n") ||
                `${tool} returned an error without a message`,
            );
          }
          return {
            content,
            details: {
              server,
              tool,
              content: Array.isArray(result.content) ? result.content : [],
              structuredContent: result.structuredContent ?? null,
            },
          };
        },
      });
    }
    statuses[entry.server.name] = {
      status: "connected",
      tools: entry.tools.map((tool) => tool.name),
      offered: mine,
    };
  }
  writeStatus(config.statusFile, statuses);
}
