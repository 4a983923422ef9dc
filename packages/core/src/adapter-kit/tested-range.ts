/**
 * The versions an adapter is tested with as a range (from `min`, inclusive, up to `below`,
 * exclusive) and the rule for a version against it: older is unavailable, newer degraded
 * (it may work, untested), inside ready. For an adapter tested with one version, see
 * {@link versionCapability}.
 *
 * @example
 * ```ts
 * const tested = testedRange("1.2.0", "1.3.0", "my-cli");
 * const version = rangeCapability("My CLI", await readVersion(executable), tested);
 * ```
 */
import type { Capability } from "../harness/contract.js";
import { compareVersions, parseVersion, type AgentVersion, type VersionProbe } from "./versions.js";

/** The versions an adapter is tested with: from `min` (inclusive) up to `below` (exclusive). */
export interface TestedRange {
  readonly min: string;
  readonly below: string;
  /** The npm package to install, for messages. */
  readonly packageName: string;
}

/** A {@link TestedRange}, for a profile's constant. */
export function testedRange(min: string, below: string, packageName: string): TestedRange {
  return Object.freeze({ min, below, packageName });
}

/** The version capability of `product` against `tested` (see the module's description). */
export function rangeCapability(
  product: string,
  probe: VersionProbe,
  tested: TestedRange,
): Capability {
  if (!probe.ok) return { status: "unavailable", reason: probe.reason };
  const min = parseVersion(tested.min) as AgentVersion;
  const below = parseVersion(tested.below) as AgentVersion;
  if (compareVersions(probe.version, min) < 0) {
    return {
      status: "unavailable",
      reason: `${product} ${probe.version.text} is older than ${tested.min}, the oldest version this adapter is tested with; install ${tested.packageName}@${tested.min}`,
    };
  }
  if (compareVersions(probe.version, below) >= 0) {
    return {
      status: "degraded",
      reason: `${product} ${probe.version.text} is newer than the tested range (>=${tested.min} <${tested.below}); it may work (the adapter's contract test tells), but it is untested`,
    };
  }
  return { status: "ready" };
}
