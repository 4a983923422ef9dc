/**
 * How Claude Code names an MCP tool for its model, as the adapter kit's collision rule
 * needs it. Claude Code 2.1.332 (its bundled source: the tool's name is
 * `` `mcp__${Hn(server)}__${Hn(tool)}` `` with `Hn` replacing every character outside
 * `[a-zA-Z0-9_-]` by `_`) so `a.b:c` and `a_b:c` are both `mcp__a_b__c`, and server `a` tool
 * `b__c` is `mcp__a__b__c` like server `a__b` tool `c`.
 */
import type { ToolNaming } from "@jest-m3/core/adapter-kit";
import { claudeToolName, normalizeName } from "./config.js";

/**
 * Claude Code's rule: `mcp__<server>__<tool>`, every character other than letters, digits,
 * `_` and `-` replaced by `_` in both parts.
 *
 * @example
 * ```ts
 * claudeCodeNaming.name("a.b", "c"); // "mcp__a_b__c"
 * ```
 */
export const claudeCodeNaming: ToolNaming = {
  agent: "Claude Code",
  rule: "mcp__<server>__<tool>, every character other than letters, digits, _ and - replaced by _",
  name: claudeToolName,
  prefix: (server) => `mcp__${normalizeName(server)}__`,
};
