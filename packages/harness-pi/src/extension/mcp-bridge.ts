/**
 * The Pi extension that gives Pi the session's MCP servers, on the adapter kit's MCP bridge.
 * Pi loads it with `--extension` and awaits it before its session starts, so every tool
 * exists before the first prompt. The kit's {@link connectBridge} connects to exactly the
 * servers the adapter passes (the wire capture's relays and proxies, so the capture sees
 * every message) and names each tool the allow-list lets through; this extension registers
 * those with Pi (no other tool is ever offered), then has the status file written. A warm
 * Pi (one process for one session after another) is started without servers and given each
 * session's by the bridge's command ({@link BRIDGE_COMMAND}); Pi's `new_session` reloads the
 * extension, whose `session_shutdown` closes the session's clients first. It runs inside
 * Pi's process (Pi's Node).
 */
// The narrow entry: Pi's start loads the bridge and the MCP SDK's client, not the whole kit.
import {
  connectBridge,
  takeBridgeConfig,
  type Bridge,
  type BridgeConfig,
} from "@jest-m3/core/bridge-agent";
import { BRIDGE_COMMAND, BRIDGE_CONFIG_VARIABLE, type BridgeDetails } from "../bridge-config.js";

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

/**
 * The extension's factory: binds the servers Pi was started with, if any, and offers the
 * command that binds a warm session's; closes every client when Pi's session shuts down
 * (Pi's exit, or `new_session` before it reloads the extension).
 */
export default async function mcpBridge(pi: PiExtensionApi): Promise<void> {
  const bridges: Bridge[] = [];
  pi.on("session_shutdown", async () => {
    await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
  });
  let bound = false;
  const bind = async (config: BridgeConfig): Promise<void> => {
    if (bound) throw new Error("the jest-m3 MCP bridge already bound this session's servers");
    bound = true;
    const bridge = await connectBridge(config);
    bridges.push(bridge);
    for (const tool of bridge.tools) register(pi, tool);
    bridge.report();
  };
  pi.registerCommand(BRIDGE_COMMAND, {
    description: "jest-m3: connect this session's MCP servers (sent by the adapter)",
    handler: (args) => bind(JSON.parse(args) as BridgeConfig),
  });
  const config = takeBridgeConfig(BRIDGE_CONFIG_VARIABLE);
  if (config) await bind(config);
}

/** Registers one bridged tool with Pi: the server's schema, and a thrown error for `isError`. */
function register(pi: PiExtensionApi, tool: Bridge["tools"][number]): void {
  pi.registerTool({
    name: tool.name,
    label: `${tool.server}:${tool.tool}`,
    description: tool.description,
    // Pi validates raw JSON Schema as well as TypeBox: the server's schema goes through.
    parameters: tool.inputSchema,
    async execute(_toolCallId, params, signal) {
      const result = await tool.call(params, signal);
      const content = piContent(result);
      // Pi marks a result as an error only when the tool throws.
      if (result.isError === true) {
        throw new Error(
          content.map((part) => (part.type === "text" ? part.text : "")).join("\n") ||
            `${tool.tool} returned an error without a message`,
        );
      }
      const { server, tool: name } = tool;
      const own = Array.isArray(result.content) ? (result.content as unknown[]) : [];
      return {
        content,
        details: {
          server,
          tool: name,
          content: own,
          structuredContent: result.structuredContent ?? null,
        },
      };
    },
  });
}
