import {
  readVersion,
  executableResolver,
  homeEnvironment,
  nativeBinary,
  runIsolated as runInThrowawayHome,
  runnable,
  type InstalledBinary,
  type IsolatedRun,
  type IsolatedRunOptions,
  type VersionProbe,
} from "@jest-m3/core/adapter-kit";
import { statSync } from "node:fs";
import { join } from "node:path";

/** The Claude Code version this adapter was tested with. Older is refused; newer is untested. */
export const TESTED_CLAUDE_CODE_VERSION = "2.1.332";

/** The configuration variable naming the Claude Code executable. */
export const EXECUTABLE_VARIABLE = "M3_CLAUDE_CODE_EXECUTABLE";

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
export function installedClaudeBinary(): InstalledBinary {
  const binary = process.platform === "win32" ? "claude.exe" : "claude";
  return nativeBinary({
    packageName: "@anthropic-ai/claude-code",
    platformPackages: platformPackages(),
    candidates: ({ package: root, platforms }) =>
      root === undefined
        ? []
        : [join(root, "bin", "claude.exe"), ...platforms.map((dir) => join(dir, binary))],
    // The wrapper's bin/claude.exe is a small placeholder until postinstall replaces it.
    accept: (path) => statSync(path).size > 1024 * 1024,
    bases: [process.cwd(), __dirname],
  });
}

/**
 * Finds the Claude Code executable: the selection's `executable`, else the configuration's
 * `M3_CLAUDE_CODE_EXECUTABLE`, else the native binary of an installed
 * `@anthropic-ai/claude-code`, else `claude` on `PATH`. An explicit path that is wrong is
 * reported, never silently replaced.
 */
export const resolveClaudeExecutable = executableResolver({
  agent: "Claude Code",
  variable: EXECUTABLE_VARIABLE,
  packageName: "@anthropic-ai/claude-code",
  binName: "claude",
  installVersion: TESTED_CLAUDE_CODE_VERSION,
  installed: installedClaudeBinary,
});

/**
 * How a probe runs Claude Code: in a fresh, throw-away HOME and CLAUDE_CONFIG_DIR with
 * nothing of the host's and only PATH inherited (no credential, no host configuration).
 */
export const PROBE_RUN: IsolatedRunOptions = {
  env: (home) =>
    homeEnvironment({}, home, {
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
    }),
  timeoutMs: 15_000,
  maxBuffer: 4 * 1024 * 1024,
};

/** Runs `<executable> <args>` as a probe (see {@link PROBE_RUN}) and returns what it printed. */
export function runIsolated(
  executable: string,
  args: readonly string[],
  timeoutMs = 15_000,
): Promise<IsolatedRun> {
  return runInThrowawayHome(runnable(executable, "path"), args, { ...PROBE_RUN, timeoutMs });
}

/** Runs `<executable> --version` in an isolated home and parses the answer. */
export function readClaudeVersion(executable: string, timeoutMs = 15_000): Promise<VersionProbe> {
  return readVersion(runnable(executable, "path"), timeoutMs, PROBE_RUN);
}
