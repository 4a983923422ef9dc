import { compareVersions, parseVersion, type AgentVersion } from "@jest-m3/core/harness";
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import type { SelectionSpec } from "@jest-m3/core/harness";

/** The Codex version this adapter was tested with. Older is refused; newer is untested. */
export const TESTED_CODEX_VERSION = "0.171.0";

/** The configuration variable naming the Codex executable. */
export const EXECUTABLE_VARIABLE = "M3_CODEX_EXECUTABLE";

/** Where an executable was found. */
export type ExecutableSource = "selection" | "config" | "package" | "path";

/** The outcome of looking for the Codex executable. */
export type ExecutableLookup =
  | { readonly found: true; readonly path: string; readonly source: ExecutableSource }
  | { readonly found: false; readonly reason: string };

/** A parsed `major.minor.patch[-prerelease]` version (core's {@link AgentVersion}). */
export type CodexVersion = AgentVersion;

const TRIPLES: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "android-x64": "x86_64-unknown-linux-musl",
  "android-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

function isRunnableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (process.platform !== "win32") accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function explicit(path: string, source: ExecutableSource, what: string): ExecutableLookup {
  const absolute = resolve(path);
  if (isRunnableFile(absolute)) return { found: true, path: absolute, source };
  const problem = existsSync(absolute) ? "is not an executable file" : "does not exist";
  return { found: false, reason: `${what} ${JSON.stringify(absolute)} ${problem}.` };
}

/**
 * The native binary of an installed `@openai/codex` (its platform package
 * `@openai/codex-<platform>-<arch>`, or the `vendor` folder of older layouts), resolved from
 * the project directory and from this package. Never the JavaScript wrapper, which would add
 * a Node process in front of Codex.
 */
export function installedCodexBinary(): { path: string } | { tried: string[] } {
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  const platformPackage = `@openai/codex-${process.platform === "android" ? "linux" : process.platform}-${process.arch}`;
  if (triple === undefined) return { tried: [`(no Codex build for ${key})`] };
  const binary = process.platform === "win32" ? "codex.exe" : "codex";
  const bases = [process.cwd(), __dirname];
  const roots: string[] = [];
  const tried: string[] = [];
  for (const base of bases) {
    for (const id of [`${platformPackage}/package.json`, "@openai/codex/package.json"]) {
      try {
        const root = dirname(require.resolve(id, { paths: [base] }));
        if (!roots.includes(root)) roots.push(root);
        if (id.startsWith("@openai/codex/")) {
          const nested = dirname(
            require.resolve(`${platformPackage}/package.json`, { paths: [root] }),
          );
          if (!roots.includes(nested)) roots.unshift(nested);
        }
      } catch {
        // Not installed from this base.
      }
    }
  }
  for (const root of roots) {
    const candidate = join(root, "vendor", triple, "bin", binary);
    if (isRunnableFile(candidate)) return { path: candidate };
    tried.push(candidate);
  }
  if (roots.length === 0) tried.push(`${platformPackage} and @openai/codex (not installed)`);
  return { tried };
}

function onPath(pathVariable: string | undefined): string | undefined {
  const names = process.platform === "win32" ? ["codex.exe", "codex.cmd", "codex"] : ["codex"];
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (isRunnableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Finds the Codex executable: the selection's `executable`, else the configuration's
 * `M3_CODEX_EXECUTABLE`, else the native binary of an installed `@openai/codex`, else
 * `codex` on `PATH`. An explicit path that is wrong is reported, never silently replaced.
 */
export function resolveCodexExecutable(
  selection: Pick<SelectionSpec, "executable">,
  config: Readonly<Record<string, string | undefined>>,
  pathVariable: string | undefined = process.env.PATH,
): ExecutableLookup {
  if (selection.executable !== undefined) {
    return explicit(selection.executable, "selection", "The selection's executable");
  }
  const configured = config[EXECUTABLE_VARIABLE];
  if (configured !== undefined && configured !== "") {
    return explicit(configured, "config", EXECUTABLE_VARIABLE);
  }
  const installed = installedCodexBinary();
  if ("path" in installed) return { found: true, path: installed.path, source: "package" };
  const found = onPath(pathVariable);
  if (found !== undefined) return { found: true, path: found, source: "path" };
  return {
    found: false,
    reason:
      `No Codex executable found: no selection executable, no ${EXECUTABLE_VARIABLE}, no installed ` +
      `@openai/codex binary (looked for ${installed.tried.join("; ")}), and no "codex" on PATH. ` +
      `Install it (npm install --save-dev @openai/codex@${TESTED_CODEX_VERSION}) or set ${EXECUTABLE_VARIABLE}.`,
  };
}

/** Parses the first `x.y.z[-pre]` in `--version` output, or returns null (core's rule). */
export const parseCodexVersion: (output: string) => CodexVersion | null = parseVersion;

export { compareVersions };

/** What `codex --version` said. */
export type VersionProbe =
  | { readonly ok: true; readonly version: CodexVersion; readonly output: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Runs `<executable> --version` in a fresh, throw-away CODEX_HOME and HOME (Codex writes
 * into its home even for `--version`) and parses the answer.
 */
export async function readCodexVersion(
  executable: string,
  timeoutMs = 15_000,
): Promise<VersionProbe> {
  const home = await mkdtemp(join(tmpdir(), "m3-codex-version-"));
  try {
    const env: Record<string, string> = { CODEX_HOME: home, HOME: home };
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    const run = await new Promise<{ stdout: string; stderr: string; error: Error | null }>(
      (done) => {
        execFile(
          executable,
          ["--version"],
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
        reason: `\`${executable} --version\` failed (${run.error.message.split("\n")[0]})${said ? `: ${said}` : ""}`,
      };
    }
    const version = parseCodexVersion(output);
    if (!version) {
      return {
        ok: false,
        reason: `\`${executable} --version\` printed ${JSON.stringify(output.slice(0, 200))}, which holds no version number x.y.z.`,
      };
    }
    return { ok: true, version, output };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
