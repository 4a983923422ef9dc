/**
 * The ACP agents' rules for flattening `server:tool` into one function name (agent facts);
 * the agent-neutral collision rule is the adapter kit's.
 */
import type { ToolNaming } from "@jest-m3/core/adapter-kit";

export {
  assertDistinctToolNames,
  identifyFlattened,
  nameCollisions,
  serverPrefixOverlaps,
  type NameCollision,
  type PrefixOverlap,
  type ToolIdentity,
  type ToolNaming,
} from "@jest-m3/core/adapter-kit";

const OPENCODE_UNSAFE = /[^a-zA-Z0-9_-]/g;

/**
 * OpenCode 1.18: `<server>_<tool>`, every character other than letters, digits, `_` and `-`
 * replaced by `_` in both parts.
 */
export const opencodeNaming: ToolNaming = {
  agent: "OpenCode",
  rule: "<server>_<tool>, every character other than letters, digits, _ and - replaced by _",
  name: (server, tool) =>
    `${server.replace(OPENCODE_UNSAFE, "_")}_${tool.replace(OPENCODE_UNSAFE, "_")}`,
  prefix: (server) => `${server.replace(OPENCODE_UNSAFE, "_")}_`,
};

/** Gemini CLI's longest function name (its MAX_FUNCTION_NAME_LENGTH - 1). */
const GEMINI_NAME_LIMIT = 63;

function geminiValidName(name: string): string {
  let valid = name.startsWith("mcp_") ? name : `mcp_${name}`;
  valid = valid.replace(/[^a-zA-Z0-9_\-.:]/g, "_");
  if (valid.length > GEMINI_NAME_LIMIT) valid = `${valid.slice(0, 30)}...${valid.slice(-30)}`;
  return valid;
}

/**
 * Gemini CLI 0.61 (its `generateValidName`): `mcp_<server>_<tool>` (no second `mcp_` when the
 * server's name starts with it), every character other than letters, digits, `_`, `-`, `.`
 * and `:` replaced by `_`, a name over 63 characters cut to its first and last 30 around
 * `...`.
 */
export const geminiNaming: ToolNaming = {
  agent: "Gemini CLI",
  rule:
    "mcp_<server>_<tool>, characters other than letters, digits, _, -, . and : replaced by _, " +
    "names over 63 characters cut to their first and last 30",
  name: (server, tool) => geminiValidName(`${server}_${tool}`),
  prefix: (server) =>
    (server.startsWith("mcp_") ? `${server}_` : `mcp_${server}_`).replace(
      /[^a-zA-Z0-9_\-.:]/g,
      "_",
    ),
};
