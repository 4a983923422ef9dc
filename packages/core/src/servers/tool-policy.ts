import { z } from "zod";
import { M3Error } from "../errors.js";
import { checkInput } from "../validation/check-input.js";

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

/** One allow-list entry: `server:tool`, both parts non-empty. */
const toolEntrySchema = z.string({ error: "is not a string." }).refine((entry) => {
  const colon = entry.indexOf(":");
  return colon > 0 && colon < entry.length - 1;
}, "is not of the form server:tool.");

/**
 * The allow-list against the servers it is for: each entry well formed, and (the rule
 * between the two fields) naming a bound server.
 */
export const toolPolicySchema = z
  .object({
    servers: z.array(z.string()),
    tools: z.array(toolEntrySchema, { error: "is not an array of strings." }).optional(),
  })
  .superRefine(({ servers, tools }, context) => {
    tools?.forEach((entry, index) => {
      const server = entry.slice(0, entry.indexOf(":"));
      if (!servers.includes(server)) {
        context.addIssue({
          code: "custom",
          path: ["tools", index],
          message: `names server "${server}", which is not bound to this session.`,
        });
      }
    });
  });

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
  checkInput(toolPolicySchema, { servers, tools }, (problem) => {
    const index = problem.path[1];
    const entry = typeof index === "number" ? (tools as readonly unknown[])[index] : tools;
    return new InvalidToolPolicy(entry, problem.problem, servers);
  });
  const policy = new Map<string, Set<string> | undefined>();
  for (const server of servers) policy.set(server, tools === undefined ? undefined : new Set());
  for (const entry of tools ?? []) {
    const colon = entry.indexOf(":");
    policy.get(entry.slice(0, colon))?.add(entry.slice(colon + 1));
  }
  return policy;
}
