/**
 * An allow-list entry must name a tool its server has. The tools a server has are what it
 * answered to the agent's `tools/list` while the session opened, as the wire capture saw it.
 */
import type { Trace } from "../evidence/trace.js";
import { toolCatalogs } from "../evidence/catalogs.js";
import { InvalidToolPolicy, type ToolPolicy } from "../servers/tool-policy.js";
import { suggestName } from "../text/suggest.js";

/**
 * Checks every allow-list entry against the tools its server listed. A server the trace
 * never saw listed is not checked (an agent may list its tools later, or never).
 *
 * @throws {@link InvalidToolPolicy} for the first entry naming a tool its server does not
 * list, with the tools it does list and the closest name.
 */
export function assertPolicyMatchesCatalogs(policy: ToolPolicy, trace: Trace): void {
  const catalogs = toolCatalogs(trace.messages);
  for (const [server, allowed] of policy) {
    const catalog = catalogs.get(server);
    if (allowed === undefined || catalog === undefined) continue;
    const names = catalog.tools.map((tool) => tool.name);
    for (const tool of allowed) {
      if (names.includes(tool)) continue;
      const guess = suggestName(tool, names);
      throw new InvalidToolPolicy(
        `${server}:${tool}`,
        `names a tool server "${server}" does not have: its tools/list offered ` +
          `${names.length > 0 ? names.join(", ") : "no tools"}.` +
          (guess === null ? "" : ` Did you mean "${server}:${guess}"?`),
        [...policy.keys()],
      );
    }
  }
}
