/**
 * The names the model sees for MCP tools, shared by the bridge extension (which registers
 * them) and the adapter (which maps reported calls back). Pi gives an extension's tool the
 * name the extension chooses; the model providers allow `^[a-zA-Z0-9_-]{1,64}$`.
 */
import { createHash } from "node:crypto";

/** The longest tool name the model providers accept. */
export const MAX_TOOL_NAME = 64;

/** An MCP server and tool, as the session's servers name them. */
export interface McpToolName {
  readonly server: string;
  readonly tool: string;
}

/** Every character a provider refuses in a tool name becomes `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The plain name of an MCP tool: `mcp__<server>__<tool>` (as Claude Code and Pi's own MCP). */
export function plainToolName(server: string, tool: string): string {
  return `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
}

/**
 * The name of a tool whose plain name is too long or collides with another's:
 * `mcp_<server[:20]>_<tool[:20]>_<12 hex of sha256(server NUL tool)>`, at most 57 characters.
 */
export function hashedToolName(server: string, tool: string): string {
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 12);
  return `mcp_${sanitizeName(server).slice(0, 20)}_${sanitizeName(tool).slice(0, 20)}_${hash}`;
}

/**
 * The model-facing name of each MCP tool: the plain name, unless it is longer than
 * {@link MAX_TOOL_NAME} or another tool's plain name is the same (`a.b` and `a_b` both
 * sanitize to `a_b`); those get {@link hashedToolName}. Returns name → server and tool.
 */
export function assignToolNames(tools: readonly McpToolName[]): Map<string, McpToolName> {
  const plainCount = new Map<string, number>();
  for (const { server, tool } of tools) {
    const plain = plainToolName(server, tool);
    plainCount.set(plain, (plainCount.get(plain) ?? 0) + 1);
  }
  const names = new Map<string, McpToolName>();
  for (const { server, tool } of tools) {
    const plain = plainToolName(server, tool);
    const unique = plainCount.get(plain) === 1 && plain.length <= MAX_TOOL_NAME;
    names.set(unique ? plain : hashedToolName(server, tool), { server, tool });
  }
  return names;
}
