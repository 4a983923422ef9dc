/**
 * Flattened tool names: many agents give an MCP server's tool one function name (`server`
 * and `tool` joined, characters outside a set rewritten), so distinct MCP tools can share
 * a name, and a call that reached one server is reported under another. An adapter states
 * its agent's rule as a {@link ToolNaming}; these parts find the tools and servers it
 * would merge ({@link nameCollisions}, {@link serverPrefixOverlaps}) and map a flattened
 * name back to its MCP tool ({@link identifyFlattened}). Refusing a session is
 * {@link assertDistinctToolNames}.
 *
 * @example
 * ```ts
 * const naming: ToolNaming = {
 *   agent: "My Agent",
 *   rule: "<server>__<tool>, other characters as _",
 *   name: (server, tool) => `${server}__${tool}`.replace(/[^\w-]/g, "_"),
 *   prefix: (server) => `${server}__`.replace(/[^\w-]/g, "_"),
 * };
 * nameCollisions(naming, [{ server: "a.b", tool: "c" }, { server: "a_b", tool: "c" }]);
 * ```
 */
import type { ToolPolicy } from "../servers/tool-policy.js";

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
  /** What the name of every tool of `server` starts with. */
  prefix(server: string): string;
}

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
 * const underscores = { name: (server: string, tool: string) => `${server}_${tool}`.replace(/\W/g, "_") };
 * nameCollisions(underscores, [
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
 * (`a_` and `a_b_` under a `<server>_<tool>` rule): a name of the form `a_b_<x>` could then be the
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
export function listedTools(policy: ToolPolicy): ToolIdentity[] {
  const tools: ToolIdentity[] = [];
  for (const [server, allowed] of policy) {
    for (const tool of allowed ?? []) tools.push({ server, tool });
  }
  return tools;
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

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Reads an MCP server and tool out of a name an agent gave a call, for an agent whose own
 * rule the adapter does not know: the session's server names are tried longest first (so
 * `a_b` wins over `a`), each in the forms agents use, `mcp__<server>__<tool>`,
 * `mcp_<server>_<tool>`, `<server>__<tool>`, `<server>:<tool>`, `<server>/<tool>` and
 * `<server>_<tool>`. A name holds no white space: display text is never read as a name.
 *
 * @example
 * ```ts
 * parseToolName("mcp__shipping__quote", ["shipping"]); // { server: "shipping", tool: "quote" }
 * ```
 */
export function parseToolName(name: string, servers: readonly string[]): ToolIdentity | undefined {
  if (!/^\S+$/.test(name)) return undefined;
  const known = [...servers].sort((a, b) => b.length - a.length);
  for (const server of known) {
    const s = escaped(server);
    const forms = [
      new RegExp(`^mcp__${s}__(.+)$`),
      new RegExp(`^mcp_${s}_(.+)$`),
      new RegExp(`^${s}__(.+)$`),
      new RegExp(`^${s}[:/](.+)$`),
      new RegExp(`^${s}_(.+)$`),
    ];
    for (const form of forms) {
      const match = form.exec(name);
      if (match) return { server, tool: match[1] as string };
    }
  }
  return undefined;
}
