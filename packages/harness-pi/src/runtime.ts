/**
 * The Node that Pi runs on. Pi 1.6 needs Node ≥ 22.19 (its `engines`), while jest-m3 runs on
 * the Node users have (≥ 20.11): the harness finds a Node new enough for Pi and starts Pi's
 * script on it, whatever Node runs the tests.
 */
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  compareVersions,
  isRunnableFile,
  onPath,
  parseVersion,
  type AgentVersion,
} from "@jest-m3/core/harness";

/** The configuration variable naming the Node executable to run Pi on. */
export const PI_NODE_VARIABLE = "M3_PI_NODE";

/** The Node version to suggest installing (a registry package ships its binary). */
export const SUGGESTED_NODE_VERSION = "22.23.5";

/** Where a Node was found. */
export type NodeSource = "options" | "config" | "package" | "path" | "process";

/** The outcome of looking for a Node new enough for Pi. */
export type NodeLookup =
  | {
      readonly found: true;
      readonly path: string;
      readonly version: AgentVersion;
      readonly source: NodeSource;
    }
  | { readonly found: false; readonly reason: string };

const versions = new Map<string, Promise<AgentVersion | string>>();

function identity(path: string): string {
  try {
    const stat = statSync(path);
    return `${path}\0${stat.mtimeMs}\0${stat.size}`;
  } catch {
    return path;
  }
}

/** Node's `v22.23.5` (a `v` before the number, which core's version rule would not read). */
export function nodeVersionOf(output: string): AgentVersion | null {
  return parseVersion(output.trim().replace(/^v/, ""));
}

/** `<node> --version`, parsed; a string says why it could not be read. Cached per binary. */
export function nodeVersion(path: string): Promise<AgentVersion | string> {
  if (path === process.execPath) {
    return Promise.resolve(nodeVersionOf(process.version) ?? `cannot parse ${process.version}`);
  }
  const key = identity(path);
  let running = versions.get(key);
  if (!running) {
    running = new Promise((done) => {
      execFile(path, ["--version"], { timeout: 15_000, env: {} }, (error, stdout) => {
        if (error) done(`\`${path} --version\` failed: ${error.message.split("\n")[0]}`);
        else {
          const printed = JSON.stringify(stdout.trim());
          done(nodeVersionOf(stdout) ?? `\`${path} --version\` printed ${printed}`);
        }
      });
    });
    versions.set(key, running);
  }
  return running;
}

/** The Node binary of an installed `node-<platform>-<arch>` package (the registry's Node builds). */
export function installedNodePackage(): string | undefined {
  const name = `node-${process.platform}-${process.arch}`;
  const binary = process.platform === "win32" ? "node.exe" : join("bin", "node");
  for (const base of [process.cwd(), __dirname]) {
    try {
      const root = dirname(require.resolve(`${name}/package.json`, { paths: [base] }));
      const path = join(root, binary);
      if (isRunnableFile(path)) return path;
    } catch {
      // Not installed from this base.
    }
  }
  return undefined;
}

/** Every Node {@link findNode} may pick, for a readiness key (the option is in the options). */
export function nodeCandidates(
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): string[] {
  const configured = config[PI_NODE_VARIABLE];
  return [
    ...(configured ? [resolve(configured)] : []),
    installedNodePackage(),
    packageRuntimeNode(),
    onPath("node", pathVariable),
    process.execPath,
  ].filter((path): path is string => path !== undefined);
}

/**
 * The Node this package's install step put in its own `node-runtime/` folder (when no Node
 * new enough was found at install time), kept out of `node_modules/.bin` on purpose.
 */
export function packageRuntimeNode(): string | undefined {
  const path = join(
    __dirname,
    "..",
    "node-runtime",
    "node_modules",
    `node-${process.platform}-${process.arch}`,
    process.platform === "win32" ? "node.exe" : join("bin", "node"),
  );
  return isRunnableFile(path) ? path : undefined;
}

/**
 * Finds a Node at least `required` to run Pi on: the option `node`, else `M3_PI_NODE`, else
 * an installed `node-<platform>-<arch>` package, else the one this package's install step
 * put in `node-runtime/`, else `node` on PATH, else the Node running this process. An explicit Node that is too old (or missing) is reported, never replaced.
 */
export async function findNode(
  required: AgentVersion,
  explicitNode: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): Promise<NodeLookup> {
  const needs = `Pi needs Node ≥ ${required.text}`;
  const fix =
    `run \`npm rebuild @jest-m3/harness-pi\` (its install step puts Node ${SUGGESTED_NODE_VERSION} in its own ` +
    `node-runtime/ folder; it did not run if install scripts were off), or name a Node ≥ ${required.text} with ` +
    `${PI_NODE_VARIABLE} or the Pi option node`;
  const configured = config[PI_NODE_VARIABLE];
  const explicit: [string, NodeSource, string] | undefined =
    explicitNode !== undefined
      ? [explicitNode, "options", "the Pi option node"]
      : configured !== undefined && configured !== ""
        ? [configured, "config", PI_NODE_VARIABLE]
        : undefined;
  if (explicit) {
    const [given, source, what] = explicit;
    const path = resolve(given);
    if (!isRunnableFile(path)) {
      return {
        found: false,
        reason: `${what} names ${JSON.stringify(path)}, which is not an executable file; ${fix}`,
      };
    }
    const version = await nodeVersion(path);
    if (typeof version === "string") return { found: false, reason: `${what}: ${version}` };
    if (compareVersions(version, required) < 0) {
      return {
        found: false,
        reason: `${what} names Node ${version.text} (${path}), but ${needs}; ${fix}`,
      };
    }
    return { found: true, path, version, source };
  }
  const candidates: [string | undefined, NodeSource][] = [
    [installedNodePackage(), "package"],
    [packageRuntimeNode(), "package"],
    [onPath("node", pathVariable), "path"],
    [process.execPath, "process"],
  ];
  const seen: string[] = [];
  for (const [path, source] of candidates) {
    if (path === undefined) continue;
    const version = await nodeVersion(path);
    if (typeof version === "string") {
      seen.push(version);
      continue;
    }
    if (compareVersions(version, required) >= 0) return { found: true, path, version, source };
    seen.push(`Node ${version.text} (${path})`);
  }
  return {
    found: false,
    reason: `${needs}, and found only ${[...new Set(seen)].join(", ")}; ${fix}`,
  };
}
