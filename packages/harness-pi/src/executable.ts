import { readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SelectionSpec } from "@jest-m3/core/harness";
import {
  parseVersion,
  resolveAgentExecutable,
  type AgentVersion,
  type ExecutableLookup,
} from "@jest-m3/core/adapter-kit";

/** The Pi version this adapter was tested with. Older is refused; newer is untested. */
export const TESTED_PI_VERSION = "1.6.0";

/** The npm package of Pi (the older `@mariozechner/pi-coding-agent` stops at 0.73.1). */
export const PI_PACKAGE = "@earendil-works/pi-coding-agent";

/** The configuration variable naming the Pi executable (its `cli.js`, or a `pi` binary). */
export const EXECUTABLE_VARIABLE = "M3_PI_EXECUTABLE";

/** Pi's Node requirement when its package.json cannot be read (1.6.0's `engines`). */
const DEFAULT_NODE_REQUIREMENT = "22.19.0";

/** Pi as found: its entry point, and whether it is a script to run on a Node. */
export type PiLookup =
  | {
      readonly found: true;
      /** The file found (the script, for Pi's `cli.js`). */
      readonly path: string;
      /** True for a JavaScript entry point (run on the Node {@link findNode} picks). */
      readonly script: boolean;
      readonly source: Extract<ExecutableLookup, { found: true }>["source"];
    }
  | { readonly found: false; readonly reason: string };

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
  return { found: true, path: real, script: /\.[cm]?js$/.test(real), source: lookup.source };
}

/** What Pi's package.json says about the installed Pi: its version and its Node requirement. */
export interface PiPackageFacts {
  readonly version: AgentVersion | null;
  readonly node: AgentVersion;
  /** The package.json read, or null when none was found next to the executable. */
  readonly manifest: string | null;
}

/**
 * Reads the package.json of the Pi package that holds `executable` (walking up from it):
 * the version, and the lowest Node its `engines` allow. Pi's own `--version` needs that
 * Node, so the version is read from the package first.
 */
export function piPackageFacts(executable: string): PiPackageFacts {
  let dir = dirname(executable);
  for (let depth = 0; depth < 6; depth++) {
    const manifest = join(dir, "package.json");
    try {
      const json = JSON.parse(readFileSync(manifest, "utf8")) as {
        name?: string;
        version?: string;
        engines?: { node?: string };
      };
      if (typeof json.name === "string" && json.name.endsWith("/pi-coding-agent")) {
        return {
          version: typeof json.version === "string" ? parseVersion(json.version) : null,
          node:
            parseVersion(json.engines?.node ?? "") ??
            (parseVersion(DEFAULT_NODE_REQUIREMENT) as AgentVersion),
          manifest,
        };
      }
    } catch {
      // No package.json here.
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return {
    version: null,
    node: parseVersion(DEFAULT_NODE_REQUIREMENT) as AgentVersion,
    manifest: null,
  };
}
