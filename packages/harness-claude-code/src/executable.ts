import { compareVersions, parseVersion, type AgentVersion } from "@jest-m3/core/harness";
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import type { SelectionSpec } from "@jest-m3/core/harness";

/** The Claude Code version this adapter was tested with. Older is refused; newer is untested. */
export const TESTED_CLAUDE_CODE_VERSION = "2.1.332";

/** The configuration variable naming the Claude Code executable. */
export const EXECUTABLE_VARIABLE = "M3_CLAUDE_CODE_EXECUTABLE";

/** Where an executable was found. */
export type ExecutableSource = "selection" | "config" | "package" | "path";

/** The outcome of looking for the Claude Code executable. */
export type ExecutableLookup =
  | { readonly found: true; readonly path: string; readonly source: ExecutableSource }
  | { readonly found: false; readonly reason: string };

/** A parsed `major.minor.patch[-prerelease]` version (core's {@link AgentVersion}). */
export type ClaudeCodeVersion = AgentVersion;

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

function platformPackages(): string[] {
  const os = process.platform === "android" ? "linux" : process.platform;
  const name = `@anthropic-ai/claude-code-${os}-${process.arch}`;
  return os === "linux" ? [name, `${name}-musl`] : [name];
}

/**
 * The native binary of an installed `@anthropic-ai/claude-code`: the package's own
 * `bin/claude.exe` (its postinstall copies the native binary there), else the binary of its
 * platform package. Never the JavaScript fallback launcher, which would put a Node process
 * in front of Claude Code. Resolved from the project directory and from this package.
 */
export function installedClaudeBinary(): { path: string } | { tried: string[] } {
  const binary = process.platform === "win32" ? "claude.exe" : "claude";
  const candidates: string[] = [];
  for (const base of [process.cwd(), __dirname]) {
    try {
      const root = dirname(
        require.resolve("@anthropic-ai/claude-code/package.json", { paths: [base] }),
      );
      candidates.push(join(root, "bin", "claude.exe"));
      for (const id of platformPackages()) {
        try {
          const nested = dirname(require.resolve(`${id}/package.json`, { paths: [root] }));
          candidates.push(join(nested, binary));
        } catch {
          // No such platform package next to it.
        }
      }
    } catch {
      // Not installed from this base.
    }
  }
  const tried: string[] = [];
  for (const candidate of [...new Set(candidates)]) {
    // The wrapper's bin/claude.exe is a small placeholder until postinstall replaces it.
    if (isRunnableFile(candidate) && statSync(candidate).size > 1024 * 1024) {
      return { path: candidate };
    }
    tried.push(candidate);
  }
  if (candidates.length === 0) tried.push("@anthropic-ai/claude-code (not installed)");
  return { tried };
}

function onPath(pathVariable: string | undefined): string | undefined {
  const names = process.platform === "win32" ? ["claude.exe", "claude.cmd", "claude"] : ["claude"];
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
 * Finds the Claude Code executable: the selection's `executable`, else the configuration's
 * `M3_CLAUDE_CODE_EXECUTABLE`, else the native binary of an installed
 * `@anthropic-ai/claude-code`, else `claude` on `PATH`. An explicit path that is wrong is
 * reported, never silently replaced.
 */
export function resolveClaudeExecutable(
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
  const installed = installedClaudeBinary();
  if ("path" in installed) return { found: true, path: installed.path, source: "package" };
  const found = onPath(pathVariable);
  if (found !== undefined) return { found: true, path: found, source: "path" };
  return {
    found: false,
    reason:
      `No Claude Code executable found: no selection executable, no ${EXECUTABLE_VARIABLE}, no installed ` +
      `@anthropic-ai/claude-code binary (looked for ${installed.tried.join("; ")}), and no "claude" on PATH. ` +
      `Install it (npm install --save-dev @anthropic-ai/claude-code@${TESTED_CLAUDE_CODE_VERSION}) or set ${EXECUTABLE_VARIABLE}.`,
  };
}

/** Parses the first `x.y.z[-pre]` in `--version` output, or returns null (core's rule). */
export const parseClaudeVersion: (output: string) => ClaudeCodeVersion | null = parseVersion;

export { compareVersions };

/** What one run of the binary in a throw-away home printed. */
export type ProbeRun =
  { readonly ok: true; readonly output: string } | { readonly ok: false; readonly reason: string };

/**
 * Runs `<executable> <args>` in a fresh, throw-away HOME and CLAUDE_CONFIG_DIR with only
 * PATH inherited (no credential, no host configuration), and returns what it printed.
 */
export async function runIsolated(
  executable: string,
  args: readonly string[],
  timeoutMs = 15_000,
): Promise<ProbeRun> {
  const home = await mkdtemp(join(tmpdir(), "m3-claude-probe-"));
  try {
    const env: Record<string, string> = {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
    };
    if (process.platform === "win32") env.USERPROFILE = home;
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    const run = await new Promise<{ stdout: string; stderr: string; error: Error | null }>(
      (done) => {
        execFile(
          executable,
          [...args],
          {
            env,
            cwd: home,
            timeout: timeoutMs,
            killSignal: "SIGKILL",
            windowsHide: true,
            maxBuffer: 4 * 1024 * 1024,
          },
          (error, stdout, stderr) => done({ stdout, stderr, error }),
        );
      },
    );
    const output = run.stdout.trim();
    if (run.error) {
      const said = [output, run.stderr.trim()].filter(Boolean).join("\n").slice(-2000);
      return {
        ok: false,
        reason: `\`${executable} ${args.join(" ")}\` failed (${run.error.message.split("\n")[0]})${said ? `: ${said}` : ""}`,
      };
    }
    return { ok: true, output };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** What `claude --version` said. */
export type VersionProbe =
  | { readonly ok: true; readonly version: ClaudeCodeVersion; readonly output: string }
  | { readonly ok: false; readonly reason: string };

/** Runs `<executable> --version` in an isolated home and parses the answer. */
export async function readClaudeVersion(
  executable: string,
  timeoutMs = 15_000,
): Promise<VersionProbe> {
  const run = await runIsolated(executable, ["--version"], timeoutMs);
  if (!run.ok) return run;
  const version = parseClaudeVersion(run.output);
  if (!version) {
    return {
      ok: false,
      reason: `\`${executable} --version\` printed ${JSON.stringify(run.output.slice(0, 200))}, which holds no version number x.y.z.`,
    };
  }
  return { ok: true, version, output: run.output };
}
