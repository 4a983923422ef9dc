/**
 * Finding an agent's executable, for adapter authors: the lookup order every jest-m3
 * harness uses (the selection's `executable`, a configuration variable, the installed npm
 * package, `PATH`), with a hook for packages that install a native binary elsewhere than
 * their bin. An explicit path that is wrong is reported, never silently replaced.
 *
 * @example
 * ```ts
 * const executable = resolveAgentExecutable({ agent: "My CLI", variable: "M3_MY_EXECUTABLE", packageName: "my-cli", binName: "my", installVersion: "1.2.3" }, selection.executable, config);
 * if (executable.found) console.log(executable.command, ...executable.prefix);
 * ```
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
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

/** A found {@link ExecutableLookup}. */
export type FoundExecutable = Extract<ExecutableLookup, { found: true }>;

/** What an {@link ExecutableSearch.installed} hook found: a binary, or where it looked. */
export type InstalledBinary = { readonly path: string } | { readonly tried: readonly string[] };

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
  /**
   * Finds the installed package's native binary (a platform package, a vendor folder)
   * instead of its bin; what it tried goes into the message when nothing is found.
   */
  readonly installed?: () => InstalledBinary;
}

/** Where an npm package's native binary may be, for {@link nativeBinary}. */
export interface NativeBinarySearch {
  /** The package, e.g. `@scope/my-cli`. */
  readonly packageName: string;
  /**
   * Its platform packages for this machine, e.g. `@scope/my-cli-linux-x64`: resolved next
   * to the package, and from the bases themselves.
   */
  readonly platformPackages: readonly string[];
  /** The files to try, in order, given the folders of the package and of its platform packages. */
  candidates(found: { readonly package?: string; readonly platforms: readonly string[] }): string[];
  /** Accepts a runnable candidate (default: every one), e.g. not an install's placeholder. */
  accept?(path: string): boolean;
  /** Where packages are resolved from: the project directory and the adapter's own folder. */
  readonly bases: readonly string[];
}

function packageRoot(id: string, base: string): string | undefined {
  try {
    return dirname(require.resolve(`${id}/package.json`, { paths: [base] }));
  } catch {
    return undefined;
  }
}

/**
 * The native binary of an installed npm package (its platform package, a vendor folder),
 * for an {@link ExecutableSearch.installed} hook: never its JavaScript launcher, which would
 * put a Node process in front of the agent. What it tried goes into the lookup's message.
 *
 * @example
 * ```ts
 * const installed = () => nativeBinary({ packageName: "my-cli", platformPackages: [`my-cli-${process.platform}-${process.arch}`], candidates: ({ platforms }) => platforms.map((root) => join(root, "bin", "my")), bases: [process.cwd(), __dirname] });
 * ```
 */
export function nativeBinary(search: NativeBinarySearch): InstalledBinary {
  const candidates: string[] = [];
  for (const base of search.bases) {
    const root = packageRoot(search.packageName, base);
    const platforms = search.platformPackages.flatMap((id) => [
      ...(root !== undefined ? [packageRoot(id, root)] : []),
      packageRoot(id, base),
    ]);
    const found = platforms.filter((dir): dir is string => dir !== undefined);
    candidates.push(...search.candidates({ package: root, platforms: [...new Set(found)] }));
  }
  const tried: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (isRunnableFile(candidate) && (search.accept?.(candidate) ?? true))
      return { path: candidate };
    tried.push(candidate);
  }
  if (candidates.length === 0) {
    tried.push(`${[search.packageName, ...search.platformPackages].join(" and ")} (not installed)`);
  }
  return { tried };
}

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
export function runnable(path: string, source: ExecutableSource): FoundExecutable {
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

/**
 * The package.json of `packageName` as Node would find the package from `base`. A package
 * whose `exports` leaves out `./package.json` (Pi's does) cannot be resolved by that path, so
 * the `node_modules` folders from `base` up are looked in too.
 */
export function packageManifest(packageName: string, base: string): string | undefined {
  try {
    return require.resolve(`${packageName}/package.json`, { paths: [base] });
  } catch {
    for (let dir = resolve(base); ; dir = dirname(dir)) {
      const manifest = join(dir, "node_modules", packageName, "package.json");
      if (existsSync(manifest)) return manifest;
      if (dirname(dir) === dir) return undefined;
    }
  }
}

/** The bin of an installed npm package, resolved from the project directory and from here. */
export function installedBin(
  packageName: string,
  binName: string,
  bases: readonly string[] = [process.cwd(), __dirname],
): string | undefined {
  for (const base of bases) {
    try {
      const manifest = packageManifest(packageName, base);
      if (manifest === undefined) continue;
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
 * variable, else the installed npm package (its native binary through `installed`, else
 * its bin), else the bin name on `PATH`.
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
  const native = search.installed?.();
  if (native && "path" in native) return runnable(native.path, "package");
  const installed = native ? undefined : installedBin(search.packageName, search.binName);
  if (installed !== undefined) return runnable(installed, "package");
  const found = onPath(search.binName, pathVariable);
  if (found !== undefined) return runnable(found, "path");
  const looked = native ? ` binary (looked for ${native.tried.join("; ")})` : "";
  return {
    found: false,
    reason:
      `No ${search.agent} executable found: no selection executable, no ${search.variable}, no ` +
      `installed ${search.packageName}${looked}, and no "${search.binName}" on PATH. Install it ` +
      `(npm install --save-dev ${search.packageName}@${search.installVersion}) or set ${search.variable}.`,
  };
}

/**
 * A harness's own lookup: {@link resolveAgentExecutable} with `search` fixed, taking the
 * selection (for its `executable`) and the kit's configuration.
 */
export function executableResolver(
  search: ExecutableSearch,
): (
  selection: { readonly executable?: string },
  config: Readonly<Record<string, string | undefined>>,
  pathVariable?: string,
) => ExecutableLookup {
  return (selection, config, pathVariable = process.env.PATH) =>
    resolveAgentExecutable(search, selection.executable, config, pathVariable);
}
