import { M3Error } from "../errors.js";

/**
 * Which tools each server may be called with. `undefined` for a server means all of its
 * tools; an empty set means none.
 */
export type ToolPolicy = ReadonlyMap<string, ReadonlySet<string> | undefined>;

/** An allow-list entry is malformed or names a server that is not bound. */
export class InvalidToolPolicy extends M3Error {
  override readonly code = "M3_INVALID_TOOL_POLICY";
  /** The entry at fault. */
  readonly entry: unknown;
  /** The servers bound to the session. */
  readonly servers: readonly string[];
  constructor(entry: unknown, problem: string, servers: readonly string[]) {
    super(
      `Tool allow-list entry ${JSON.stringify(entry)} ${problem} Entries are "server:tool"; ` +
        `the bound servers are: ${servers.length > 0 ? servers.map((name) => JSON.stringify(name)).join(", ") : "(none)"}.`,
    );
    this.entry = entry;
    this.servers = servers;
  }
}

/**
 * Turns `tools: ["server:tool", ...]` into a {@link ToolPolicy} over the bound servers.
 * Omitted = every tool of every server; `[]` = no tool at all.
 *
 * @throws {@link InvalidToolPolicy} for an entry that is not `server:tool` or whose server
 * is not bound, listing the bound servers.
 */
export function parseToolPolicy(
  tools: readonly string[] | undefined,
  servers: readonly string[],
): ToolPolicy {
  const policy = new Map<string, Set<string> | undefined>();
  for (const server of servers) policy.set(server, tools === undefined ? undefined : new Set());
  if (tools === undefined) return policy;
  if (!Array.isArray(tools)) {
    throw new InvalidToolPolicy(tools, "is not an array of strings.", servers);
  }
  for (const entry of tools as unknown[]) {
    if (typeof entry !== "string") throw new InvalidToolPolicy(entry, "is not a string.", servers);
    const colon = entry.indexOf(":");
    if (colon <= 0 || colon === entry.length - 1) {
      throw new InvalidToolPolicy(entry, "is not of the form server:tool.", servers);
    }
    const server = entry.slice(0, colon);
    const tool = entry.slice(colon + 1);
    const allowed = policy.get(server);
    if (!policy.has(server) || allowed === undefined) {
      throw new InvalidToolPolicy(
        entry,
        `names server "${server}", which is not bound to this session.`,
        servers,
      );
    }
    allowed.add(tool);
  }
  return policy;
}
