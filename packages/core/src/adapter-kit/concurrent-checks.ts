/**
 * The executable → version → start checks of an agent whose version and start each take
 * seconds, run at once rather than one after the other: the agent is started while its
 * version is read, and the start is withdrawn (its signal aborted, so the adapter stops what
 * it started) when the version turns out unusable; its answer then does not count. For the
 * chain that starts only after the version, see {@link agentChecks}.
 *
 * @example
 * ```ts
 * const checks = await concurrentAgentChecks({
 *   agent: "My CLI", found: lookup, run: lookup,
 *   version: async (executable) => ({ capability: rangeCapability("My CLI", await readVersion(executable), TESTED), text: null }),
 *   start: (executable, signal) => probeStart(executable, signal),
 *   notStarted: (reason) => ({ status: "unavailable", reason }),
 * });
 * ```
 */
import type { Capability } from "../harness/contract.js";
import { errorMessage } from "./agent-errors.js";
import type { ExecutableLookup, FoundExecutable } from "./executables.js";

/** What {@link concurrentAgentChecks} needs: the executables, and the two probes. */
export interface ConcurrentCheckSpec<T> {
  /** The agent's name in reasons, e.g. `My CLI`. */
  readonly agent: string;
  /** The executable as it was looked up: the `executable` capability. */
  readonly found: ExecutableLookup;
  /**
   * What is run: `found`, or `found` on the runtime it needs (a newer Node for a script),
   * `found: false` when no runtime fits (the adapter reports why as its `node` capability).
   */
  readonly run: ExecutableLookup;
  /** The version capability of `executable`, and the version's text when it was read. */
  version(
    executable: FoundExecutable,
  ): Promise<{ readonly capability: Capability; readonly text: string | null }>;
  /** Starts the agent to check it; `signal` aborts when the answer no longer counts. */
  start(executable: FoundExecutable, signal: AbortSignal): Promise<T>;
  /** The start's result when it did not run, or was withdrawn, for `reason`. */
  notStarted(reason: string): T;
}

/** The executable and version capabilities, the start's result, and the version's text. */
export interface ConcurrentChecks<T> {
  readonly executable: Capability;
  readonly version: Capability;
  readonly start: T;
  readonly versionText: string | null;
}

/** See the module's description; a version probe that throws is an unavailable version. */
export async function concurrentAgentChecks<T>(
  spec: ConcurrentCheckSpec<T>,
): Promise<ConcurrentChecks<T>> {
  const { agent, found, run } = spec;
  if (!run.found) {
    const missing = found.found ? `no runtime for ${agent} (see node)` : `no ${agent} executable`;
    return {
      executable: found.found
        ? { status: "ready" }
        : { status: "unavailable", reason: found.reason },
      version: { status: "unavailable", reason: `${missing} to ask for its version` },
      start: spec.notStarted(`${missing} to start`),
      versionText: null,
    };
  }
  const withdraw = new AbortController();
  const started = spec.start(run, withdraw.signal);
  const version = await spec.version(run).catch((error: unknown) => ({
    capability: {
      status: "unavailable",
      reason: `the version of ${agent} could not be read: ${errorMessage(error)}`,
    } satisfies Capability,
    text: null,
  }));
  const usable = version.capability.status !== "unavailable";
  if (!usable) withdraw.abort(new Error("the version check failed"));
  const answer = await started; // when withdrawn: the adapter stopped what it started
  return {
    executable: { status: "ready" },
    version: version.capability,
    start: usable ? answer : spec.notStarted("not checked: the version check failed"),
    versionText: version.text,
  };
}
