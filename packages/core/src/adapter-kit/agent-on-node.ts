/**
 * Starting an agent that is a JavaScript file on the Node it needs rather than the tests'
 * own: the command becomes the Node {@link findAgentNode} found, with the script (after any
 * Node flags) as the prefix, and readiness names that Node and the one the agent needs. An
 * executable that is no script (a native binary, a wrapper given by path) runs as it is.
 *
 * @example
 * ```ts
 * const { executable, node } = await onAgentNode(found, { agent: "My CLI", minimum: "22.0.0", variable: "M3_MY_NODE", installedBy: "my-adapter" }, undefined, config);
 * if (executable.found) launch.spawn({ label: "my-cli", command: executable.command, args: [...executable.prefix, "--serve"] });
 * ```
 */
import type { Capability } from "../harness/contract.js";
import { agentNodeCapability, findAgentNode, type AgentNodeSearch } from "./agent-node.js";
import type { ExecutableLookup, FoundExecutable } from "./executables.js";

/** An agent's start on its Node, and the `node` readiness capability that says which. */
export interface AgentOnNode {
  /** How to start the agent (`found: false` with the reason when no Node fits). */
  readonly executable: ExecutableLookup;
  readonly node: Capability;
}

/**
 * `executable` on a Node new enough for `search.agent`: the explicit Node (an option), else
 * the kit's lookup. A `.js`/`.mjs`/`.cjs` file only; anything else runs as it is.
 *
 * @param nodeFlags - Node's own flags before the script (e.g. `--expose-gc`).
 */
export async function onAgentNode(
  executable: FoundExecutable,
  search: AgentNodeSearch,
  explicitNode: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
  nodeFlags: readonly string[] = [],
): Promise<AgentOnNode> {
  if (!/\.[cm]?js$/.test(executable.path)) {
    const reason = `${executable.path} is run as it is, on no Node of the adapter's`;
    return { executable, node: { status: "ready", reason } };
  }
  const node = await findAgentNode(search, explicitNode, config);
  return {
    executable: node.found
      ? { ...executable, command: node.path, prefix: [...nodeFlags, executable.path] }
      : { found: false, reason: node.reason },
    node: agentNodeCapability(node, search.agent),
  };
}
