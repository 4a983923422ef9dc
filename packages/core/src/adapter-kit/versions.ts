/**
 * An agent's version: running it in a throw-away home (agents write into their home even
 * for `--version`), parsing `x.y.z[-pre]`, comparing, and the one rule for a version
 * against the one an adapter is tested with (older: unavailable, newer: degraded).
 *
 * @example
 * ```ts
 * const probe = await readVersion(executable, 15_000);
 * const version = versionCapability(probe, { product: "My CLI", tested: "1.2.3", install: "my-cli@1.2.3" });
 * ```
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Capability } from "../harness/contract.js";
import type { FoundExecutable } from "./executables.js";

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

/** What one run in a throw-away home printed on stdout, or why it failed. */
export type IsolatedRun =
  { readonly ok: true; readonly output: string } | { readonly ok: false; readonly reason: string };

/** How {@link runIsolated} runs. */
export interface IsolatedRunOptions {
  /** The environment in the fresh folder `home` (PATH is added); default HOME, XDG_*, TMPDIR. */
  readonly env?: (home: string) => Record<string, string>;
  readonly timeoutMs?: number;
  /** The most stdout kept (default Node's 1 MiB). */
  readonly maxBuffer?: number;
}

function defaultEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "data"),
    XDG_CACHE_HOME: join(home, "cache"),
    XDG_STATE_HOME: join(home, "state"),
    TMPDIR: home,
    NO_COLOR: "1",
  };
}

/**
 * Runs `<executable> <args>` in a fresh, throw-away home with only PATH inherited (no
 * credential, no host configuration), and returns what it printed. The folder is removed.
 */
export async function runIsolated(
  executable: FoundExecutable,
  args: readonly string[],
  options: IsolatedRunOptions = {},
): Promise<IsolatedRun> {
  const home = await mkdtemp(join(tmpdir(), "m3-probe-"));
  const shown = [executable.path, ...args].join(" ");
  try {
    const env = (options.env ?? defaultEnv)(home);
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    const { timeoutMs = 60_000, maxBuffer } = options;
    const run = await new Promise<{ stdout: string; stderr: string; error: Error | null }>(
      (done) => {
        execFile(
          executable.command,
          [...executable.prefix, ...args],
          {
            env,
            cwd: home,
            timeout: timeoutMs,
            killSignal: "SIGKILL",
            windowsHide: true,
            ...(maxBuffer ? { maxBuffer } : {}),
          },
          (error, stdout, stderr) => done({ stdout, stderr, error }),
        );
      },
    );
    const output = run.stdout.trim();
    if (!run.error) return { ok: true, output };
    const said = [output, run.stderr.trim()].filter(Boolean).join("\n").slice(-2000);
    const failure = run.error as Error & {
      killed?: boolean;
      signal?: string | null;
      code?: unknown;
    };
    // Node's message is only "Command failed: <command>": say how it ended.
    const how = failure.killed
      ? `timed out after ${timeoutMs} ms and was killed; a busy machine can do that, so run it again`
      : failure.signal
        ? `ended by ${failure.signal}`
        : typeof failure.code === "number"
          ? `exit code ${failure.code}`
          : failure.message.split("\n")[0];
    return {
      ok: false,
      reason: `\`${shown}\` failed (${how})${said ? `: ${said}` : ""}`,
    };
  } finally {
    // A killed agent's helpers may still write there for a moment: retry, never fail on it.
    await rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(
      () => undefined,
    );
  }
}

/** Runs `<executable> --version` in a throw-away home (see {@link runIsolated}) and parses it. */
export async function readVersion(
  executable: FoundExecutable,
  timeoutMs = 60_000,
  options: Omit<IsolatedRunOptions, "timeoutMs"> = {},
): Promise<VersionProbe> {
  const run = await runIsolated(executable, ["--version"], { ...options, timeoutMs });
  if (!run.ok) return run;
  const version = parseVersion(run.output);
  if (version) return { ok: true, version, output: run.output };
  return {
    ok: false,
    reason: `\`${executable.path} --version\` printed ${JSON.stringify(run.output.slice(0, 200))}, which holds no version number x.y.z.`,
  };
}

/**
 * Parses the first `x.y.z[-pre]` in a `--version` output, or returns null. The number may
 * follow a letter (Node prints `v22.23.5`), never a digit or a dot (no match inside `1.2.3.4`'s tail).
 */
export function parseVersion(output: string): AgentVersion | null {
  const match = /(?<![\d.])(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?/.exec(output);
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

/** The version an adapter is tested with, for {@link versionCapability}. */
export interface VersionRule {
  /** The product in messages, e.g. `My CLI`. */
  readonly product: string;
  /** The tested version, e.g. `1.2.3`. */
  readonly tested: string;
  /** What to install, e.g. `my-cli@1.2.3`. */
  readonly install: string;
  /** What tells whether a newer one works (default "the adapter's contract test"). */
  readonly checkedBy?: string;
}

/**
 * The version capability: unavailable when the probe failed or the version is older than
 * the tested one, degraded (usable, untested) when newer, ready when equal.
 */
export function versionCapability(probe: VersionProbe, rule: VersionRule): Capability {
  if (!probe.ok) return { status: "unavailable", reason: probe.reason };
  const tested = parseVersion(rule.tested);
  const order = tested === null ? 0 : compareVersions(probe.version, tested);
  const against = `${rule.tested}, the version this adapter is tested with`;
  if (order < 0) {
    return {
      status: "unavailable",
      reason: `${rule.product} ${probe.version.text} is older than ${against}; install ${rule.install}`,
    };
  }
  if (order > 0) {
    const checkedBy = rule.checkedBy ?? "the adapter's contract test";
    return {
      status: "degraded",
      reason: `${rule.product} ${probe.version.text} is newer than ${against}; it may work (${checkedBy} tells), but it is untested`,
    };
  }
  return { status: "ready" };
}
