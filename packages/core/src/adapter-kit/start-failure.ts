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

/** How {@link startOrUndo} words a start's failure and undoes what the start began. */
export interface StartUndo {
  readonly names: AgentNames;
  /** The launch's signal: a failure after it aborted is a start the session tore down. */
  readonly signal: AbortSignal;
  /** The agent's stderr tail at the failure ("" where it is not this session's). */
  stderrTail(): string;
  /** Stops the agent, or leaves a shared one; done before the error is thrown. */
  undo(): Promise<void>;
  /** The failure in the agent's own words, where it has some for `error` (else the kit's). */
  failure?(error: unknown, context: StartFailureContext): HarnessStartError | undefined;
  /** A shared agent: the error keeps no stderr section (see {@link withoutSharedStderr}). */
  readonly shared?: boolean;
}

/**
 * `start()`, or, when it throws, its {@link startFailure} in the agent's words (with the
 * stderr section), thrown after `undo()`: what every adapter's `open()` does once the agent
 * runs.
 *
 * @example
 * ```ts
 * return startOrUndo("my-agent", () => handshake(client), {
 *   names, signal: launch.signal, stderrTail: () => client.agent.stderrTail(), undo: () => client.close(300),
 * });
 * ```
 */
export async function startOrUndo<T>(
  harness: string,
  start: () => Promise<T>,
  on: StartUndo,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const context = { names: on.names, stderrTail: on.stderrTail(), aborted: on.signal.aborted };
    const failure = on.failure?.(error, context) ?? startFailure(harness, error, context);
    await on.undo();
    throw on.shared ? withoutSharedStderr(harness, failure) : failure;
  }
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
