/**
 * Refusing a session whose MCP tools an agent would give one name, before anything starts:
 * the error names the servers or tools, the agent's rule, and the fix.
 *
 * @example
 * ```ts
 * assertDistinctToolNames(naming, launch.servers.map((s) => s.name), launch.toolPolicy, false);
 * ```
 */
import { M3Error } from "../errors.js";
import type { ToolPolicy } from "../servers/tool-policy.js";
import {
  listedTools,
  nameCollisions,
  serverPrefixOverlaps,
  type NameCollision,
  type PrefixOverlap,
  type ToolNaming,
} from "./tool-names.js";

/** The session's MCP tool names collide once the agent flattens them. */
export class ToolNameCollision extends M3Error {
  override readonly code = "M3_INVALID_SESSION_OPTIONS";
  /** The agent, as the adapter names it. */
  readonly agent: string;
  /** The servers or `server:tool` names that collide. */
  readonly names: readonly string[];
  constructor(agent: string, problem: string, names: readonly string[]) {
    super(`The session's tool names collide in ${agent}: ${problem}`);
    this.agent = agent;
    this.names = names;
  }
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
 *
 * @example
 * ```ts
 * assertDistinctToolNames(naming, ["a.b", "a_b"], launch.toolPolicy, options.exposeDisallowedTools);
 * ```
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
        `so it would offer only one of them and report every call of any under that name. ` +
        `Rename one of their servers (its name in the server spec) so the names differ.`,
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
