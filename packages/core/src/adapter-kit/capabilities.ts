/**
 * Readiness builders: the capabilities every process-driving adapter reports, built from
 * facts only its agent knows. `worst()` combines capabilities; `agentChecks()` is the
 * executable → version → start chain (each step only when the one before allows it);
 * `sessionCapabilities()`
 * the capabilities a session gates on, from the harness's and the credentials' state; and
 * `probeOnce()` keeps a successful probe for the process's life.
 *
 * @example
 * ```ts
 * const checks = await agentChecks({ agent: "My CLI", executable, version: rule, probeVersion, start: { name: "cli", probe: checkCli } });
 * const credentials = agentCredentials(provider, credentialNames, { named, login });
 * const capabilities = sessionCapabilities(worst(checks.executable, checks.version, checks.start), credentials);
 * ```
 */
import { statSync } from "node:fs";
import {
  readinessOf,
  type Capabilities,
  type Capability,
  type CapabilityStatus,
  type Readiness,
  type ReadinessContext,
} from "../harness/contract.js";
import { errorMessage } from "./agent-errors.js";
import type { ExecutableLookup, FoundExecutable } from "./executables.js";
import {
  versionCapability,
  type AgentVersion,
  type VersionProbe,
  type VersionRule,
} from "./versions.js";

const RANK: Readonly<Record<CapabilityStatus, number>> = {
  ready: 0,
  degraded: 1,
  unsupported: 2,
  unavailable: 3,
};

/** The worst of `capabilities` (ready < degraded < unsupported < unavailable), every reason kept once. */
export function worst(...capabilities: Capability[]): Capability {
  const rank = Math.max(...capabilities.map((capability) => RANK[capability.status]));
  if (rank === 0) return { status: "ready" };
  const status = capabilities.find((capability) => RANK[capability.status] === rank)?.status;
  const reasons = capabilities
    .filter((capability) => capability.status !== "ready" && capability.reason)
    .map((capability) => capability.reason);
  return { status: status ?? "unavailable", reason: [...new Set(reasons)].join("; ") };
}

/**
 * The running or finished probe under `key`, else `probe()` started and kept. A result
 * `keep` refuses (a failure, maybe the machine's moment) is dropped, so the next call asks again.
 */
export function probeOnce<T>(
  cache: Map<string, Promise<T>>,
  key: string,
  probe: () => Promise<T>,
  keep: (result: T) => boolean,
): Promise<T> {
  let running = cache.get(key);
  if (!running) {
    running = probe();
    cache.set(key, running);
    void running.then((result) => {
      if (!keep(result)) cache.delete(key);
    });
  }
  return running;
}

/**
 * A {@link probeOnce} with its own cache: `probe(key, run)` runs `run` once per key while its
 * results pass `keep`.
 */
export function probeCache<T>(
  keep: (result: T) => boolean,
): (key: string, run: () => Promise<T>) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (key, run) => probeOnce(cache, key, run, keep);
}

/**
 * `read` kept per executable file (its path, mtime and size): a version is read once per
 * binary in a process; a failure is read again next time.
 */
export function cachedVersionProbe(
  read: (executable: FoundExecutable) => Promise<VersionProbe>,
): (executable: FoundExecutable) => Promise<VersionProbe> {
  const probe = probeCache<VersionProbe>((result) => result.ok);
  return (executable) => probe(fileIdentity(executable.path), () => read(executable));
}

/** A key that changes when the file at `path` is replaced (path, mtime, size). */
export function fileIdentity(path: string): string {
  try {
    const stat = statSync(path);
    return `${path}\0${stat.mtimeMs}\0${stat.size}`;
  } catch {
    return path;
  }
}

/** What {@link agentChecks} needs: the lookup, the version rule, and the probes. */
export interface AgentCheckSpec {
  /** The agent's name in reasons, e.g. `My CLI`. */
  readonly agent: string;
  readonly executable: ExecutableLookup;
  readonly version: VersionRule;
  /** Asks the executable for its version (a throw becomes an unavailable version). */
  probeVersion(executable: FoundExecutable): Promise<VersionProbe>;
  /** The check that the agent starts, run only when the version is usable. */
  readonly start: {
    /** The capability's name, e.g. `appServer`. */
    readonly name: string;
    /** The reason given when the version check failed, e.g. "not started: the version check failed". */
    readonly skipped?: string;
    probe(executable: FoundExecutable, version: AgentVersion): Promise<Capability>;
  };
}

/** The executable, version and start capabilities, and the version's text when known. */
export interface AgentChecks {
  readonly executable: Capability;
  readonly version: Capability;
  readonly start: Capability;
  readonly versionText: string | null;
}

/** Runs the executable → version → start chain; a step that cannot run says why. */
export async function agentChecks(spec: AgentCheckSpec): Promise<AgentChecks> {
  const { agent, executable } = spec;
  if (!executable.found) {
    return {
      executable: { status: "unavailable", reason: executable.reason },
      version: { status: "unavailable", reason: `no ${agent} executable to ask for its version` },
      start: { status: "unavailable", reason: `no ${agent} executable to start` },
      versionText: null,
    };
  }
  const probe = await spec.probeVersion(executable).catch((error: unknown): VersionProbe => ({
    ok: false,
    reason: `\`${executable.path} --version\` could not run: ${errorMessage(error)}`,
  }));
  const version = versionCapability(probe, spec.version);
  const start: Capability =
    probe.ok && version.status !== "unavailable"
      ? await spec.start.probe(executable, probe.version)
      : {
          status: "unavailable",
          reason: spec.start.skipped ?? "not started: the version check failed",
        };
  return {
    executable: { status: "ready" },
    version,
    start,
    versionText: probe.ok ? probe.version.text : null,
  };
}

/**
 * The capabilities a session gates on, when everything the agent does rests on `harness`
 * (its executable, version, start): multi-turn also needs `credentials`; `facts` adds or
 * overrides entries (the probes' own capabilities, an unsupported feature).
 */
export function sessionCapabilities(
  harness: Capability,
  credentials: Capability,
  facts: Readonly<Record<string, Capability>> = {},
): Capabilities {
  return {
    multiTurn: worst(harness, credentials),
    toolPolicy: harness,
    wireEvidence: harness,
    reportedEvidence: harness,
    cancellation: harness,
    approvals: harness,
    elicitation: harness,
    credentials,
    ...facts,
  };
}

/** What {@link agentReadiness} needs: the chain of {@link agentChecks}, and the rest. */
export interface AgentReadinessSpec extends AgentCheckSpec {
  /** The harness's name in the readiness, e.g. `my-agent`. */
  readonly harness: string;
  /** What the session has to authenticate with (see `agentCredentials`). */
  readonly credentials: Capability;
  /** Capabilities to add or override (an unsupported feature). */
  readonly facts?: Readonly<Record<string, Capability>>;
}

/**
 * The readiness of an agent whose every capability rests on its executable, version and
 * start: {@link agentChecks}' chain, its three capabilities (the start under its own name),
 * and {@link sessionCapabilities} over the chain's worst and the credentials.
 *
 * @example
 * ```ts
 * return agentReadiness({ harness: "my-agent", agent: "My CLI", executable, version: rule, probeVersion, start: { name: "cli", probe: checkCli }, credentials });
 * ```
 */
export async function agentReadiness(spec: AgentReadinessSpec): Promise<Readiness> {
  const checks = await agentChecks(spec);
  const { executable, version, start } = checks;
  const capabilities = sessionCapabilities(worst(executable, version, start), spec.credentials, {
    executable,
    version,
    [spec.start.name]: start,
    ...spec.facts,
  });
  const path = spec.executable.found ? spec.executable.path : null;
  return readinessOf(
    { name: spec.harness, version: checks.versionText, executable: path },
    capabilities,
  );
}

/**
 * A readiness key (what a harness's readiness depends on, not the model): the executable it
 * resolves to (or why there is none), the adapter's own `facts` (a login's home, the
 * provider's fields it reads), the credential names and the selection's options.
 */
export function agentReadinessKey(
  executable: ExecutableLookup,
  context: {
    readonly credentialNames: ReadinessContext["credentialNames"];
    readonly selection: Pick<ReadinessContext["selection"], "options">;
  },
  ...facts: unknown[]
): string {
  return JSON.stringify([
    executable.found ? executable.path : `missing:${executable.reason}`,
    ...facts,
    [...context.credentialNames].sort(),
    context.selection.options,
  ]);
}
