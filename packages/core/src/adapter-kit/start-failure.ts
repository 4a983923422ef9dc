/**
 * Turning whatever stopped an adapter's `open()` into one {@link HarnessStartError} in the
 * agent's words, with the agent's stderr section: a start torn down by the session, an
 * agent that exited while starting, one that did not answer or answered with an error.
 *
 * @example
 * ```ts
 * try {
 *   await client.request("initialize", params, { timeoutMs, signal: launch.signal });
 * } catch (error) {
 *   throw startFailure("my-agent", error, { names, stderrTail: client.agent.stderrTail(), aborted: launch.signal.aborted });
 * }
 * ```
 */
import { HarnessStartError, type Capability } from "../harness/contract.js";
import { AgentExited, AgentProtocolError, AgentTimeout, errorMessage } from "./agent-errors.js";
import type { AgentNames } from "./agent-names.js";
import type { ExecutableLookup, FoundExecutable } from "./executables.js";

/** What {@link startFailure} knows of the moment. */
export interface StartFailureContext {
  readonly names: AgentNames;
  /** The agent's stderr tail ("" where it is not this session's). */
  readonly stderrTail: string;
  /** True when the launch's signal aborted (the session was torn down). */
  readonly aborted: boolean;
}

/** The words for a start the session tore down, e.g. while `My Agent` was starting. */
export function tornDown(names: AgentNames): string {
  return `the session was torn down while ${names.agent} was starting`;
}

/**
 * The {@link HarnessStartError} for `error` thrown while opening a session of `harness`. A
 * HarnessStartError passes through as it is.
 */
export function startFailure(
  harness: string,
  error: unknown,
  context: StartFailureContext,
): HarnessStartError {
  if (error instanceof HarnessStartError) return error;
  const { names, stderrTail, aborted } = context;
  const details = { stderrTail, cause: error };
  if (aborted) return new HarnessStartError(harness, tornDown(names), details);
  if (error instanceof AgentExited) {
    const what = `${names.process ?? names.agent} exited (${error.exit}) while starting`;
    return new HarnessStartError(harness, what, details);
  }
  if (error instanceof AgentTimeout || error instanceof AgentProtocolError) {
    return new HarnessStartError(harness, error.message, details);
  }
  return new HarnessStartError(harness, errorMessage(error), details);
}

/**
 * A start failure without the stderr section, for an agent shared by several sessions
 * (another session's lines may be in its stderr): the first line of `failure`'s words.
 */
export function withoutSharedStderr(
  harness: string,
  failure: HarnessStartError,
): HarnessStartError {
  const prefix = `Harness "${harness}" could not open a session: `;
  const first = failure.message.split("\n")[0] ?? failure.message;
  const words = first.startsWith(prefix) ? first.slice(prefix.length) : first;
  return new HarnessStartError(harness, words, { cause: failure });
}

/**
 * The executable a session of `harness` starts, refused before anything starts (a
 * {@link HarnessStartError} in the words readiness gives) when there is none or when
 * `credentials` (the session's, as readiness reports them) are not ready.
 *
 * @example
 * ```ts
 * const executable = launchable("my-agent", resolveMyExecutable(launch.selection, launch.config), credentials);
 * launch.spawn({ label: "my-agent", command: executable.command, args: [...executable.prefix], env, cwd });
 * ```
 */
export function launchable(
  harness: string,
  executable: ExecutableLookup,
  credentials: Capability,
): FoundExecutable {
  if (!executable.found) throw new HarnessStartError(harness, executable.reason);
  if (credentials.status !== "ready") {
    throw new HarnessStartError(harness, credentials.reason ?? "no credentials");
  }
  return executable;
}
