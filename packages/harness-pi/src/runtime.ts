/**
 * The Node that Pi runs on. Pi 1.6 needs Node ≥ 22.19 (its `engines`), while jest-m3 runs on
 * the Node users have (≥ 20.11): the harness finds a Node new enough for Pi with the adapter
 * kit's {@link findAgentNode} (the same lookup and the same installed copy as every agent
 * that needs Node 22) and starts Pi's script on it, whatever Node runs the tests.
 */
import {
  agentNodeCandidates,
  AGENT_NODE_VERSION,
  findAgentNode,
  type AgentNodeLookup,
  type AgentNodeSearch,
  type AgentNodeSource,
  type AgentVersion,
} from "@jest-m3/core/adapter-kit";

/** The configuration variable naming the Node executable to run Pi on. */
export const PI_NODE_VARIABLE = "M3_PI_NODE";

/** The Node version to suggest installing (a registry package ships its binary). */
export const SUGGESTED_NODE_VERSION = AGENT_NODE_VERSION;

/** Where a Node was found. */
export type NodeSource = AgentNodeSource;

/** The outcome of looking for a Node new enough for Pi. */
export type NodeLookup = AgentNodeLookup;

function piNodeSearch(required: AgentVersion): AgentNodeSearch {
  return {
    agent: "Pi",
    minimum: required.text,
    variable: PI_NODE_VARIABLE,
    installedBy: "@jest-m3/harness-pi",
    option: "the Pi option node",
  };
}

/** Every Node {@link findNode} may pick, for a readiness key (the option is in the options). */
export function nodeCandidates(
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): string[] {
  return agentNodeCandidates({ variable: PI_NODE_VARIABLE }, config, pathVariable);
}

/**
 * Finds a Node at least `required` to run Pi on: the option `node`, else `M3_PI_NODE`, else
 * the adapter kit's lookup (an installed `node-<platform>-<arch>` package, the copy the
 * install step put in `@jest-m3/core`'s `node-runtime/`, `node` on PATH, this process's
 * Node). An explicit Node that is too old (or missing) is reported, never replaced.
 */
export function findNode(
  required: AgentVersion,
  explicitNode: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): Promise<NodeLookup> {
  return findAgentNode(piNodeSearch(required), explicitNode, config, pathVariable);
}
