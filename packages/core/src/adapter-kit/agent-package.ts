/**
 * What an agent's npm package says of the installed agent, for an agent that is a script
 * run on a Node of the adapter's choosing: its version and the oldest Node its `engines`
 * allow. The script's own `--version` needs that Node, so both are read from the package.
 *
 * @example
 * ```ts
 * const facts = readAgentPackage(script, (name) => name === "my-agent", "22.0.0");
 * console.log(facts.version?.text, facts.node.text);
 * ```
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseVersion, type AgentVersion } from "./versions.js";

/** An installed agent's package facts. */
export interface AgentPackage {
  /** The package's version, or null when no package.json of the agent was found. */
  readonly version: AgentVersion | null;
  /** The oldest Node its `engines` allow (the default when it names none). */
  readonly node: AgentVersion;
  /** The package.json read, or null when none was found. */
  readonly manifest: string | null;
}

/**
 * Reads the package.json of the package holding `file` (walking up at most six folders to
 * the first whose `name` passes `isAgent`): its version and its Node requirement, else
 * `defaultNode` (an `x.y.z`).
 */
export function readAgentPackage(
  file: string,
  isAgent: (name: string) => boolean,
  defaultNode: string,
): AgentPackage {
  const fallback = parseVersion(defaultNode) as AgentVersion;
  let dir = dirname(file);
  for (let depth = 0; depth < 6; depth++) {
    const manifest = join(dir, "package.json");
    try {
      const json = JSON.parse(readFileSync(manifest, "utf8")) as {
        name?: string;
        version?: string;
        engines?: { node?: string };
      };
      if (typeof json.name === "string" && isAgent(json.name)) {
        return {
          version: typeof json.version === "string" ? parseVersion(json.version) : null,
          node: parseVersion(json.engines?.node ?? "") ?? fallback,
          manifest,
        };
      }
    } catch {
      // No package.json here.
    }
    if (dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  return { version: null, node: fallback, manifest: null };
}
