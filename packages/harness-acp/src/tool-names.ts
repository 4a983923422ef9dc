import type { ToolPolicy } from "@jest-m3/core/harness";
import { ToolNameCollision } from "./errors.js";

/** An MCP server and tool, as the wire names them. */
export interface ToolIdentity {
  readonly server: string;
  readonly tool: string;
}

/**
 * How an agent flattens an MCP server and tool into the one function name its model sees
 * (and that it reports the call under).
 */
export interface ToolNaming {
  /** The agent, for messages. */
  readonly agent: string;
  /** The rule in words, for messages (`<server>_<tool>, other characters as _`). */
  readonly rule: string;
  /** The agent's name for `server:tool`. */
  name(server: string, tool: string): string;
  /**
   * What the name of every tool of `server` starts with. Undefined when a name may not
   * keep it (Gemini CLI cuts long names in the middle).
   */
  prefix(server: string): string;
}

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

/** Distinct MCP tools that an agent would give one name. */
export interface NameCollision {
  /** The agent's name for all of them. */
  readonly name: string;
  /** The MCP tools, as `server:tool`. */
  readonly tools: readonly string[];
}

/**
 * The groups of distinct MCP tools that `naming` flattens to the same agent name: an agent
 * offers one of them and reports every call of the group under that name. Agent-neutral:
 * give it any agent's rule and the tools it will be offered.
 *
 * @example
 * ```ts
 * nameCollisions(opencodeNaming, [
 *   { server: "a.b", tool: "c" },
 *   { server: "a_b", tool: "c" },
 *   { server: "a", tool: "b_c" },
 * ]); // [{ name: "a_b_c", tools: ["a.b:c", "a:b_c", "a_b:c"] }]
 * ```
 */
export function nameCollisions(
  naming: Pick<ToolNaming, "name">,
  tools: readonly ToolIdentity[],
): NameCollision[] {
  const byName = new Map<string, Set<string>>();
  for (const { server, tool } of tools) {
    const name = naming.name(server, tool);
    byName.set(name, (byName.get(name) ?? new Set()).add(`${server}:${tool}`));
  }
  return [...byName]
    .filter(([, group]) => group.size > 1)
    .map(([name, group]) => ({ name, tools: [...group].sort() }));
}

/** Two servers whose tools' names an agent could not tell apart. */
export interface PrefixOverlap {
  /** The servers, the one with the shorter prefix first. */
  readonly servers: readonly [string, string];
  /** Their prefixes, in the same order. */
  readonly prefixes: readonly [string, string];
}

/**
 * The pairs of servers whose flattened prefixes are equal or one starts with the other
 * (`a_` and `a_b_` under OpenCode's rule): a name of the form `a_b_<x>` could then be the
 * shorter one's tool `b_<x>` or the longer one's `<x>`, and nothing in the name tells which.
 */
export function serverPrefixOverlaps(
  naming: Pick<ToolNaming, "prefix">,
  servers: readonly string[],
): PrefixOverlap[] {
  const overlaps: PrefixOverlap[] = [];
  const prefixes = servers.map((server) => ({ server, prefix: naming.prefix(server) }));
  prefixes.sort((a, b) => a.prefix.length - b.prefix.length || (a.server < b.server ? -1 : 1));
  prefixes.forEach((short, index) => {
    for (const long of prefixes.slice(index + 1)) {
      if (long.prefix.startsWith(short.prefix)) {
        overlaps.push({
          servers: [short.server, long.server],
          prefixes: [short.prefix, long.prefix],
        });
      }
    }
  });
  return overlaps;
}

/** The allow-listed tools of the policy, one identity each. */
function listedTools(policy: ToolPolicy): ToolIdentity[] {
  const tools: ToolIdentity[] = [];
  for (const [server, allowed] of policy) {
    for (const tool of allowed ?? []) tools.push({ server, tool });
  }
  return tools;
}

/**
 * Refuses a session whose tool names the agent would merge, before anything starts: two
 * allow-listed tools with one flattened name, or (when the agent is offered tools the
 * allow-list does not name: a server with no list, or `exposeDisallowedTools`) two servers
 * whose prefixes overlap, since then a tool of one could carry the name of a tool of the
 * other. Without this, one call is recorded twice: on the wire under the server that got
 * it, and as reported under the other.
 *
 * @throws {@link ToolNameCollision} naming the servers and tools, and how to fix it.
 */
export function assertDistinctToolNames(
  naming: ToolNaming,
  servers: readonly string[],
  policy: ToolPolicy,
  exposeDisallowedTools: boolean,
): void {
  const collisions = nameCollisions(naming, listedTools(policy));
  if (collisions.length > 0) {
    const first = collisions[0] as NameCollision;
    throw new ToolNameCollision(
      naming.agent,
      `${naming.agent} names ${first.tools.join(", ")} all "${first.name}" (${naming.rule}), ` +
        `so it would offer only one of them and report every call of any under that name.`,
      first.tools,
    );
  }
  const unlisted = exposeDisallowedTools
    ? servers
    : servers.filter((server) => policy.has(server) && policy.get(server) === undefined);
  const overlaps = serverPrefixOverlaps(naming, servers).filter(
    (overlap) => unlisted.includes(overlap.servers[0]) || unlisted.includes(overlap.servers[1]),
  );
  if (overlaps.length > 0) {
    const { servers: pair, prefixes } = overlaps[0] as PrefixOverlap;
    const same = prefixes[0] === prefixes[1];
    throw new ToolNameCollision(
      naming.agent,
      `${naming.agent} names the tools of servers "${pair[0]}" and "${pair[1]}" ` +
        (same
          ? `both "${prefixes[0]}<tool>"`
          : `"${prefixes[0]}<tool>" and "${prefixes[1]}<tool>"`) +
        ` (${naming.rule}), so a name starting "${prefixes[1]}" could be a tool of either. ` +
        `Rename one of the servers (its name in the server spec) so neither prefix starts the other, ` +
        `or list the tools of both in the session's tools (exposeDisallowedTools off) so every name is known.`,
      [...pair],
    );
  }
}

/**
 * The MCP tool an agent's flattened name stands for: an allow-listed tool whose name it is
 * exactly (so a tool whose name the agent rewrote is found under its real name), else the
 * one server whose prefix it starts with and the rest as the tool. Undefined when the name
 * is none of the session's tools.
 */
export function identifyFlattened(
  naming: ToolNaming,
  name: string,
  servers: readonly string[],
  policy: ToolPolicy,
): ToolIdentity | undefined {
  const exact = listedTools(policy).find(
    (entry) => servers.includes(entry.server) && naming.name(entry.server, entry.tool) === name,
  );
  if (exact) return exact;
  const candidates = servers
    .map((server) => ({ server, prefix: naming.prefix(server) }))
    .filter(({ prefix }) => name.startsWith(prefix) && name.length > prefix.length)
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const best = candidates[0];
  return best ? { server: best.server, tool: name.slice(best.prefix.length) } : undefined;
}
