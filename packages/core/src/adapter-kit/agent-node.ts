/**
 * The Node an agent's script runs on, for adapters whose agent needs a newer Node than the
 * one running the tests (jest-m3 runs on the Node users have). One lookup order for every
 * adapter: the harness's option, its configuration variable, an installed
 * `node-<platform>-<arch>` package, the copy in this package's `node-runtime/` folder (put
 * there by {@link AGENT_NODE_INSTALLER}, which an adapter's install script calls, so two
 * agents needing the same Node share one copy), `node` on PATH, the Node running this
 * process. An explicit Node that is too old or missing is reported, never replaced.
 *
 * @example
 * ```ts
 * const node = await findAgentNode({ agent: "My CLI", minimum: "22.0.0", variable: "M3_MY_NODE", installedBy: "my-adapter" }, undefined, config);
 * if (node.found) console.log(node.path, node.version.text);
 * const capability = agentNodeCapability(node, { agent: "My CLI", minimum: "22.0.0", variable: "M3_MY_NODE", installedBy: "my-adapter" });
 * ```
 */
import { execFile } from "node:child_process";
import { lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Capability } from "../harness/contract.js";
import { fileIdentity } from "./capabilities.js";
import { isRunnableFile, onPath } from "./executables.js";
import { compareVersions, parseVersion, type AgentVersion } from "./versions.js";

/** The Node version the installer puts in `node-runtime/` (the registry's `node-<platform>-<arch>` build). */
export const AGENT_NODE_VERSION = "22.23.5";

/**
 * The installer an adapter's install script calls (a CommonJS module of this package):
 * `require("@jest-m3/core/agent-node-installer").installAgentNode({ agent, minimum, packageName })`.
 * It does nothing when a Node new enough is already at hand, and never fails the install.
 */
export const AGENT_NODE_INSTALLER = "@jest-m3/core/agent-node-installer";

/** Where a Node was found. */
export type AgentNodeSource = "options" | "config" | "package" | "runtime" | "path" | "process";

/** The outcome of looking for a Node new enough for an agent. */
export type AgentNodeLookup =
  | {
      readonly found: true;
      readonly path: string;
      readonly version: AgentVersion;
      readonly source: AgentNodeSource;
      /** The Node the agent needs, e.g. `22.19.0`. */
      readonly minimum: string;
    }
  | { readonly found: false; readonly reason: string; readonly minimum?: string };

/** What an agent needs of Node, for {@link findAgentNode}. */
export interface AgentNodeSearch {
  /** The agent's name in messages, e.g. `Pi`. */
  readonly agent: string;
  /** The oldest Node it runs on, e.g. `22.19.0` (its package's `engines`). */
  readonly minimum: string;
  /** The configuration variable naming a Node to use, e.g. `M3_PI_NODE`. */
  readonly variable: string;
  /** The adapter package whose install step puts the Node in place, for the fix. */
  readonly installedBy: string;
  /** The harness option naming a Node, for messages (e.g. `the Pi option node`). */
  readonly option?: string;
}

const versions = new Map<string, Promise<AgentVersion | string>>();

/** `<node> --version` (`v22.23.5`), parsed; a string says why it could not be read. Cached per binary. */
export function nodeVersion(path: string): Promise<AgentVersion | string> {
  if (path === process.execPath) {
    return Promise.resolve(parseVersion(process.version) ?? `cannot parse ${process.version}`);
  }
  const key = fileIdentity(path);
  let running = versions.get(key);
  if (!running) {
    running = new Promise((done) => {
      execFile(path, ["--version"], { timeout: 15_000, env: {} }, (error, stdout) => {
        if (error) done(`\`${path} --version\` failed: ${error.message.split("\n")[0]}`);
        else {
          const printed = JSON.stringify(stdout.trim());
          done(parseVersion(stdout) ?? `\`${path} --version\` printed ${printed}`);
        }
      });
    });
    versions.set(key, running);
  }
  return running;
}

function nodeBinary(): string {
  return process.platform === "win32" ? "node.exe" : join("bin", "node");
}

/** The Node binary of an installed `node-<platform>-<arch>` package (the registry's Node builds). */
export function installedNodePackage(): string | undefined {
  const name = `node-${process.platform}-${process.arch}`;
  for (const base of [process.cwd(), __dirname]) {
    try {
      const root = dirname(require.resolve(`${name}/package.json`, { paths: [base] }));
      const path = join(root, nodeBinary());
      if (isRunnableFile(path)) return path;
    } catch {
      // Not installed from this base.
    }
  }
  return undefined;
}

/** The folder the installer installs Node into: this package's `node-runtime/`. */
export function agentNodeRuntimeDir(): string {
  // dist/adapter-kit (or src/adapter-kit) → the package root.
  return join(__dirname, "..", "..", "node-runtime");
}

/**
 * The Node the installer put in this package's `node-runtime/` folder, kept out of any
 * `node_modules/.bin` on purpose (it never becomes the project's `node`).
 */
export function runtimeNode(): string | undefined {
  const path = join(
    agentNodeRuntimeDir(),
    "node_modules",
    `node-${process.platform}-${process.arch}`,
    nodeBinary(),
  );
  return isRunnableFile(path) ? path : undefined;
}

/** Every Node {@link findAgentNode} may pick, for a readiness key (the option is in the options). */
export function agentNodeCandidates(
  search: Pick<AgentNodeSearch, "variable">,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): string[] {
  const configured = config[search.variable];
  return [
    ...(configured ? [resolve(configured)] : []),
    installedNodePackage(),
    runtimeNode(),
    onPath("node", pathVariable),
    process.execPath,
  ].filter((path): path is string => path !== undefined);
}

function fixFor(search: AgentNodeSearch): string {
  const option = search.option ? ` or ${search.option}` : "";
  return (
    `run \`npm rebuild ${search.installedBy}\` (its install step puts Node ${AGENT_NODE_VERSION} in ` +
    `@jest-m3/core's node-runtime/ folder; it did not run if install scripts were off), or name a ` +
    `Node ≥ ${search.minimum} with ${search.variable}${option}`
  );
}

/**
 * Finds a Node at least `search.minimum` to run the agent on: `explicitNode` (the harness's
 * option), else `config[search.variable]`, else an installed `node-<platform>-<arch>`
 * package, else the installer's copy, else `node` on PATH, else the Node running this
 * process. An explicit Node that is too old (or missing) is reported, never replaced.
 */
export async function findAgentNode(
  search: AgentNodeSearch,
  explicitNode: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): Promise<AgentNodeLookup> {
  const { minimum } = search;
  const required = parseVersion(minimum);
  if (required === null) {
    return {
      found: false,
      minimum,
      reason: `${search.agent}'s Node minimum "${minimum}" is not x.y.z`,
    };
  }
  const needs = `${search.agent} needs Node ≥ ${minimum}`;
  const configured = config[search.variable];
  const explicit: [string, AgentNodeSource, string] | undefined =
    explicitNode !== undefined
      ? [explicitNode, "options", search.option ?? "the harness option"]
      : configured !== undefined && configured !== ""
        ? [configured, "config", search.variable]
        : undefined;
  if (explicit) {
    const [given, source, what] = explicit;
    const path = resolve(given);
    if (!isRunnableFile(path)) {
      return {
        found: false,
        minimum,
        reason: `${what} names ${JSON.stringify(path)}, which is not an executable file; ${fixFor(search)}`,
      };
    }
    const version = await nodeVersion(path);
    if (typeof version === "string")
      return { found: false, minimum, reason: `${what}: ${version}` };
    if (compareVersions(version, required) < 0) {
      return {
        found: false,
        minimum,
        reason: `${what} names Node ${version.text} (${path}), but ${needs}; ${fixFor(search)}`,
      };
    }
    return { found: true, path, version, source, minimum };
  }
  const candidates: [string | undefined, AgentNodeSource][] = [
    [installedNodePackage(), "package"],
    [runtimeNode(), "runtime"],
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
    if (compareVersions(version, required) >= 0) {
      return { found: true, path, version, source, minimum };
    }
    seen.push(`Node ${version.text} (${path})`);
  }
  return {
    found: false,
    minimum,
    reason: `${needs}, and found only ${[...new Set(seen)].join(", ")}; ${fixFor(search)}`,
  };
}

/**
 * The readiness capability of a {@link findAgentNode} answer: ready naming the Node found
 * (version, path, where from) and the one needed, else unavailable with the reason.
 */
export function agentNodeCapability(lookup: AgentNodeLookup, agent: string): Capability {
  if (!lookup.found) return { status: "unavailable", reason: lookup.reason };
  return {
    status: "ready",
    reason: `Node ${lookup.version.text} (${lookup.path}, from ${lookup.source}); ${agent} needs Node ≥ ${lookup.minimum}`,
  };
}

/** `M3_NODE_COMPILE_CACHE=off` starts agents without Node's compile cache. */
export const NODE_COMPILE_CACHE_VARIABLE = "M3_NODE_COMPILE_CACHE";

/** By temporary folder: this user's compile cache folder there, or `null` when unsafe. */
const compileCacheDirs = new Map<string, string | null>();

/**
 * This user's folder for Node's compile cache: created (mode 0700) in the temporary folder
 * `root`, and used only when it is a real folder this user owns that no one else may write
 * (a folder another user planted there could feed the agent compiled code). `null` when it
 * cannot be used. Checked once per process and folder.
 */
function ownCompileCacheDir(root: string): string | null {
  const known = compileCacheDirs.get(root);
  if (known !== undefined) return known;
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const dir = join(root, `jest-m3-node-compile-cache-${uid ?? "user"}`);
  let usable: string | null = null;
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // There already (checked below), or not creatable (then lstat fails too).
  }
  try {
    const stat = lstatSync(dir);
    const owned = uid === undefined || stat.uid === uid;
    if (stat.isDirectory() && owned && (stat.mode & 0o022) === 0) usable = dir;
  } catch {
    // Unreadable: no cache.
  }
  compileCacheDirs.set(root, usable);
  return usable;
}

/**
 * What an adapter adds to the environment of an agent that runs on Node: Node's compile
 * cache (`NODE_COMPILE_CACHE`, Node 22.1 and later; older ones ignore it), so that each
 * start after the first loads the agent's code already compiled (Qwen Code: about 0.45
 * CPU-seconds and 400 ms less a start). The cache holds V8's compiled form of the agent's
 * own files, keyed by their content, and nothing of a session; it lives outside every
 * session's home, in one folder per user in the temporary folder (`config.TMPDIR`, else the
 * system's). Empty when the launch's environment already names
 * a cache (the user's own wins), when `config` turns it off ({@link NODE_COMPILE_CACHE_VARIABLE}
 * `=off`), or when the folder is not safe to use.
 *
 * @example
 * ```ts
 * const env = { ...launch.env, ...agentNodeCacheEnvironment(launch.env, process.env) };
 * ```
 */
export function agentNodeCacheEnvironment(
  launchEnv: Readonly<Record<string, string | undefined>>,
  config: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  if (launchEnv.NODE_COMPILE_CACHE !== undefined) return {};
  if (config[NODE_COMPILE_CACHE_VARIABLE] === "off") return {};
  const dir = ownCompileCacheDir(config.TMPDIR || tmpdir());
  return dir === null ? {} : { NODE_COMPILE_CACHE: dir };
}
