import { realpathSync } from "node:fs";
import type { SelectionSpec } from "@jest-m3/core/harness";
import {
  agentNodeCandidates,
  AGENT_NODE_VERSION,
  findAgentNode,
  onAgentNode,
  readAgentPackage,
  resolveAgentExecutable,
  runnable,
  type AgentNodeLookup,
  type AgentNodeSearch,
  type AgentOnNode,
  type FoundExecutable,
  type AgentNodeSource,
  type AgentPackage,
  type AgentVersion,
  type ExecutableLookup,
} from "@jest-m3/core/adapter-kit";

/** The Pi version this adapter was tested with. Older is refused; newer is untested. */
export const TESTED_PI_VERSION = "1.6.0";

/** The npm package of Pi (the older `@mariozechner/pi-coding-agent` stops at 0.73.1). */
export const PI_PACKAGE = "@earendil-works/pi-coding-agent";

/** The configuration variable naming the Pi executable (its `cli.js`, or a `pi` binary). */
export const EXECUTABLE_VARIABLE = "M3_PI_EXECUTABLE";

/** The configuration variable naming the Node executable to run Pi on. */
export const PI_NODE_VARIABLE = "M3_PI_NODE";

/** The Node version to suggest installing (a registry package ships its binary). */
export const SUGGESTED_NODE_VERSION = AGENT_NODE_VERSION;

/** Where a Node was found. */
export type NodeSource = AgentNodeSource;

/** The outcome of looking for a Node new enough for Pi. */
export type NodeLookup = AgentNodeLookup;

/** Pi as found: how to start its entry point (a script runs on this Node until {@link piOnNode}). */
export type PiLookup = ExecutableLookup;

/**
 * Finds Pi: the selection's `executable`, else `M3_PI_EXECUTABLE`, else the bin of the
 * installed `@earendil-works/pi-coding-agent`, else `pi` on PATH. A `pi` that is a link to
 * Pi's script counts as the script.
 */
export function resolvePiExecutable(
  selection: Pick<SelectionSpec, "executable">,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): PiLookup {
  const lookup = resolveAgentExecutable(
    {
      agent: "Pi",
      variable: EXECUTABLE_VARIABLE,
      packageName: PI_PACKAGE,
      binName: "pi",
      installVersion: TESTED_PI_VERSION,
    },
    selection.executable,
    config,
    pathVariable,
  );
  if (!lookup.found) return lookup;
  let real = lookup.path;
  try {
    real = realpathSync(lookup.path);
  } catch {
    // Keep the path as found.
  }
  return runnable(real, lookup.source);
}

/** What Pi's package.json says about the installed Pi: its version and its Node requirement. */
export type PiPackageFacts = AgentPackage;

/**
 * Reads the package.json of the Pi package that holds `executable` (either package name):
 * the version, and the lowest Node its `engines` allow (1.6.0's, 22.19.0, when unreadable).
 * Pi's own `--version` needs that Node, so the version is read from the package first.
 */
export function piPackageFacts(executable: string): PiPackageFacts {
  return readAgentPackage(executable, (name) => name.endsWith("/pi-coding-agent"), "22.19.0");
}

/** Every Node {@link findNode} may pick, for a readiness key (the option is in the options). */
export function nodeCandidates(
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): string[] {
  return agentNodeCandidates({ variable: PI_NODE_VARIABLE }, config, pathVariable);
}

function nodeSearch(required: AgentVersion): AgentNodeSearch {
  return {
    agent: "Pi",
    minimum: required.text,
    variable: PI_NODE_VARIABLE,
    installedBy: "@jest-m3/harness-pi",
    option: "the Pi option node",
  };
}

/**
 * Finds a Node at least `required` to run Pi on (Pi 1.6 needs Node ≥ 22.19, while jest-m3
 * runs on the Node users have): the option `node`, else `M3_PI_NODE`, else the adapter
 * kit's lookup (an installed `node-<platform>-<arch>` package, the copy the install step
 * put in `@jest-m3/core`'s `node-runtime/`, `node` on PATH, this process's Node). An
 * explicit Node that is too old (or missing) is reported, never replaced.
 */
export function findNode(
  required: AgentVersion,
  explicitNode: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): Promise<NodeLookup> {
  return findAgentNode(nodeSearch(required), explicitNode, config, pathVariable);
}

/** Pi's script on the Node {@link findNode} picks (a native `pi` as it is), and the `node` capability. */
export function piOnNode(
  pi: FoundExecutable,
  explicitNode: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
): Promise<AgentOnNode> {
  return onAgentNode(pi, nodeSearch(piPackageFacts(pi.path).node), explicitNode, config);
}
