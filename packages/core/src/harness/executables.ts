/**
 * Finding and probing an agent's executable, for adapter authors: the lookup order every
 * jest-m3 harness uses (the selection's `executable`, a configuration variable, the
 * installed npm package's bin, `PATH`), version parsing and comparison, and a `--version`
 * probe in a throw-away home.
 *
 * @example
 * ```ts
 * const executable = resolveAgentExecutable(selection.executable, config, { agent: "My CLI", variable: "M3_MY_EXECUTABLE", packageName: "my-cli", binName: "my", installVersion: "1.2.3" });
 * if (executable.found) console.log((await readVersion(executable)).ok);
 * ```
 */
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";

/** Where an executable was found. */
export type ExecutableSource = "selection" | "config" | "package" | "path" | "options";

/**
 * How to start an agent: `command` with `prefix` before the agent's own arguments. A
 * JavaScript entry point runs on this Node (`process.execPath` + the script), so no `node`
 * needs to be on the agent's PATH and no shell wrapper sits in between.
 */
export type ExecutableLookup =
  | {
      readonly found: true;
      /** The file found (the script, for a JavaScript entry point). */
      readonly path: string;
      readonly command: string;
      readonly prefix: readonly string[];
      readonly source: ExecutableSource;
    }
  | { readonly found: false; readonly reason: string };

/** Where a named agent's executable comes from, for {@link resolveAgentExecutable}. */
export interface ExecutableSearch {
  /** The agent's name for messages, e.g. `Gemini CLI`. */
  readonly agent: string;
  /** The configuration variable naming the executable, e.g. `M3_GEMINI_EXECUTABLE`. */
  readonly variable: string;
  /** The npm package that installs it, e.g. `@google/gemini-cli`. */
  readonly packageName: string;
  /** The package's bin name, also looked up on PATH, e.g. `gemini`. */
  readonly binName: string;
  /** The version to suggest installing. */
  readonly installVersion: string;
}

/** A parsed `major.minor.patch[-prerelease]` version. */
export interface AgentVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: string | null;
  /** As printed, e.g. `0.61.0`. */
  readonly text: string;
}

/** What `--version` said. */
export type VersionProbe =
  | { readonly ok: true; readonly version: AgentVersion; readonly output: string }
  | { readonly ok: false; readonly reason: string };

/** True for a file that can be run (a JavaScript file need not be executable). */
export function isRunnableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (process.platform !== "win32" && !/\.[cm]?js$/.test(path)) accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** How to run `path`: on this Node when it is a JavaScript file, else directly. */
export function runnable(path: string, source: ExecutableSource): ExecutableLookup {
  return /\.[cm]?js$/.test(path)
    ? { found: true, path, command: process.execPath, prefix: [path], source }
    : { found: true, path, command: path, prefix: [], source };
}

function explicit(path: string, source: ExecutableSource, what: string): ExecutableLookup {
  const absolute = resolve(path);
  if (isRunnableFile(absolute)) return runnable(absolute, source);
  const problem = existsSync(absolute) ? "is not an executable file" : "does not exist";
  return { found: false, reason: `${what} ${JSON.stringify(absolute)} ${problem}.` };
}

/** The bin of an installed npm package, resolved from the project directory and from here. */
export function installedBin(packageName: string, binName: string): string | undefined {
  for (const base of [process.cwd(), __dirname]) {
    try {
      const manifest = require.resolve(`${packageName}/package.json`, { paths: [base] });
      const json = JSON.parse(readFileSync(manifest, "utf8")) as {
        bin?: string | Record<string, string>;
      };
      const bin = typeof json.bin === "string" ? json.bin : json.bin?.[binName];
      if (bin === undefined) continue;
      const path = join(dirname(manifest), bin);
      if (isRunnableFile(path)) return path;
    } catch {
      // Not installed from this base.
    }
  }
  return undefined;
}

/** The first `name` on a PATH-like list, or undefined. */
export function onPath(name: string, pathVariable: string | undefined): string | undefined {
  const names = process.platform === "win32" ? [`${name}.exe`, `${name}.cmd`, name] : [name];
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const candidate of names.map((entry) => join(dir, entry))) {
      if (isRunnableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Finds a named agent's executable: the selection's `executable`, else the configuration
 * variable, else the bin of the installed npm package, else the bin name on `PATH`. A path
 * given explicitly that is wrong is reported, never silently replaced.
 */
export function resolveAgentExecutable(
  search: ExecutableSearch,
  executable: string | undefined,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): ExecutableLookup {
  if (executable !== undefined) {
    return explicit(executable, "selection", "The selection's executable");
  }
  const configured = config[search.variable];
  if (configured !== undefined && configured !== "") {
    return explicit(configured, "config", search.variable);
  }
  const installed = installedBin(search.packageName, search.binName);
  if (installed !== undefined) return runnable(installed, "package");
  const found = onPath(search.binName, pathVariable);
  if (found !== undefined) return runnable(found, "path");
  return {
    found: false,
    reason:
      `No ${search.agent} executable found: no selection executable, no ${search.variable}, no ` +
      `installed ${search.packageName}, and no "${search.binName}" on PATH. Install it ` +
      `(npm install --save-dev ${search.packageName}@${search.installVersion}) or set ${search.variable}.`,
  };
}

/** Parses the first `x.y.z[-pre]` in a `--version` output, or returns null. */
export function parseVersion(output: string): AgentVersion | null {
  const match = /\b(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?/.exec(output);
  if (!match) return null;
  const [text, major, minor, patch, prerelease] = match;
  return {
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch),
    prerelease: prerelease ?? null,
    text,
  };
}

/** Negative when `a` is older than `b`, 0 when equal, positive when newer. */
export function compareVersions(a: AgentVersion, b: AgentVersion): number {
  const order = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (order !== 0) return order;
  if (a.prerelease === b.prerelease) return 0;
  if (a.prerelease === null) return 1;
  if (b.prerelease === null) return -1;
  return a.prerelease < b.prerelease ? -1 : 1;
}

/**
 * Runs `<command> <prefix> --version` in a fresh, throw-away HOME and XDG folders (agents
 * write into them even for `--version`) and parses the answer.
 */
export async function readVersion(
  executable: Extract<ExecutableLookup, { found: true }>,
  timeoutMs = 60_000,
): Promise<VersionProbe> {
  const home = await mkdtemp(join(tmpdir(), "m3-version-"));
  const shown = [executable.path, "--version"].join(" ");
  try {
    const env: Record<string, string> = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, "config"),
      XDG_DATA_HOME: join(home, "data"),
      XDG_CACHE_HOME: join(home, "cache"),
      XDG_STATE_HOME: join(home, "state"),
      TMPDIR: home,
      NO_COLOR: "1",
    };
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    const run = await new Promise<{ stdout: string; stderr: string; error: Error | null }>(
      (done) => {
        execFile(
          executable.command,
          [...executable.prefix, "--version"],
          { env, cwd: home, timeout: timeoutMs, killSignal: "SIGKILL", windowsHide: true },
          (error, stdout, stderr) => done({ stdout, stderr, error }),
        );
      },
    );
    const output = run.stdout.trim();
    if (run.error) {
      const said = [output, run.stderr.trim()].filter(Boolean).join("\n").slice(-2000);
      return {
        ok: false,
        reason: `\`${shown}\` failed (${run.error.message.split("\n")[0]})${said ? `: ${said}` : ""}`,
      };
    }
    const version = parseVersion(output);
    if (!version) {
      return {
        ok: false,
        reason: `\`${shown}\` printed ${JSON.stringify(output.slice(0, 200))}, which holds no version number x.y.z.`,
      };
    }
    return { ok: true, version, output };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
