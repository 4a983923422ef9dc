/**
 * What readiness keeps across runs in the runner's {@link ProbeCache}, and how it is read
 * back: a key naming a binary by its identity (path, modification time, size; none for a
 * binary whose identity cannot be read), a version probe, capabilities, each checked by
 * shape (a damaged file reads as nothing, and the probe runs again).
 *
 * @example
 * ```ts
 * const version = await versionAcrossRuns(executable, context.probeCache, "my-agent");
 * const key = storedProbeKey("my-agent:start", executable.path, options);
 * ```
 */
import type { Capability, ProbeCache } from "../harness/contract.js";
import { errorMessage } from "./agent-errors.js";
import { fileIdentity } from "./capabilities.js";
import type { FoundExecutable } from "./executables.js";
import { probeAcrossRuns } from "./probe-across-runs.js";
import { readVersion, type VersionProbe } from "./versions.js";

/**
 * The key of probe `probe` of the binary at `path` (its identity) and of what else the
 * answer depends on (`rest`); undefined when the binary's identity cannot be read.
 */
export function storedProbeKey(
  probe: string,
  path: string,
  ...rest: unknown[]
): string | undefined {
  const identity = fileIdentity(path);
  return identity === path ? undefined : JSON.stringify([probe, identity, ...rest]);
}

const STATUSES: readonly string[] = ["ready", "degraded", "unsupported", "unavailable"];

/** True for a {@link Capability} as stored (a known status). */
export function isCapability(value: unknown): value is Capability {
  const capability = value as Capability | null;
  return typeof capability?.status === "string" && STATUSES.includes(capability.status);
}

/** A stored record of capabilities under `keys`, or undefined when it is not one. */
export function storedCapabilities<K extends string>(
  value: unknown,
  keys: readonly K[],
): Record<K, Capability> | undefined {
  const record = value as Partial<Record<K, unknown>> | null;
  return record && keys.every((key) => isCapability(record[key]))
    ? (value as Record<K, Capability>)
    : undefined;
}

/** A stored successful version probe, or undefined when it is not one. */
export function storedVersion(value: unknown): VersionProbe | undefined {
  const probe = value as { ok?: unknown; version?: { text?: unknown }; output?: unknown } | null;
  return probe?.ok === true &&
    typeof probe.version?.text === "string" &&
    typeof probe.output === "string"
    ? (value as VersionProbe)
    : undefined;
}

const versions = new Map<string, Promise<VersionProbe>>();

/**
 * `<executable> --version` (see {@link readVersion}) read once per binary in a process and,
 * with the runner's cache, once across runs under `storedProbeKey("<prefix>:version", ...)`
 * until the binary changes. A failure is never kept.
 */
export function versionAcrossRuns(
  executable: FoundExecutable,
  cache: ProbeCache | undefined,
  prefix: string,
): Promise<VersionProbe> {
  return probeAcrossRuns(
    versions,
    fileIdentity(executable.path),
    { cache, key: storedProbeKey(`${prefix}:version`, executable.path), read: storedVersion },
    (result) => result.ok,
    () =>
      readVersion(executable).catch((error: unknown): VersionProbe => ({
        ok: false,
        reason: `\`${executable.path} --version\` could not run: ${errorMessage(error)}`,
      })),
  );
}
