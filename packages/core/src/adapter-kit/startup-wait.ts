/**
 * Waiting for an agent's own startup (its MCP servers connected, a session ready) the way
 * every adapter's `open()` must: re-checked on each of the agent's messages, ended by the
 * failure the check reports, the deadline, the session being torn down, or the agent's
 * exit, each as one {@link HarnessStartError} (or the adapter's exit error) with the agent's
 * stderr tail.
 *
 * @example
 * ```ts
 * await startupWait({
 *   harness: "my-agent", names, agent: client.agent, signal: launch.signal, timeoutMs: 30_000,
 *   changes: (listener) => client.onNotification(listener),
 *   check: () => (failed ? `MCP server "${failed}" failed to start` : allReady),
 *   waiting: () => `MCP servers not ready within 30000 ms: ${pending.join(", ")}`,
 * });
 * ```
 */
import { HarnessStartError } from "../harness/contract.js";
import type { AgentNames } from "./agent-names.js";
import type { AgentProcess } from "./agent-process.js";
import { tornDown } from "./start-failure.js";

/** What {@link startupWait} watches, and how its ends are worded. */
export interface StartupWait {
  /** The harness's name in errors, e.g. `my-agent`. */
  readonly harness: string;
  readonly names: AgentNames;
  readonly agent: Pick<AgentProcess, "onExit" | "stderrTail">;
  /** The launch's signal: its abort ends the wait as torn down. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Calls `listener` whenever the state may have changed; returns the function that stops it. */
  changes(listener: () => void): () => void;
  /** `true` once started, the words of a failure, or `false` while still starting. */
  check(): boolean | string;
  /** The words for the deadline: what is still starting. */
  waiting(): string;
  /** The error for the agent's exit (default: a start error naming the exit). */
  exited?(exit: string): Error;
}

/** Resolves once the agent has started; see the module's description. */
export function startupWait(wait: StartupWait): Promise<void> {
  const { harness, agent, signal } = wait;
  return new Promise<void>((resolve, reject) => {
    const stops: (() => void)[] = [];
    const settle = (error?: Error): void => {
      for (const stop of stops.splice(0)) stop();
      if (error === undefined) resolve();
      else reject(error);
    };
    const fail = (words: string): void =>
      settle(new HarnessStartError(harness, words, { stderrTail: agent.stderrTail() }));
    const check = (): void => {
      const state = wait.check();
      if (typeof state === "string") fail(state);
      else if (state) settle();
    };
    const timer = setTimeout(() => fail(wait.waiting()), wait.timeoutMs);
    stops.push(() => clearTimeout(timer));
    const onAbort = (): void => settle(new HarnessStartError(harness, tornDown(wait.names)));
    signal.addEventListener("abort", onAbort, { once: true });
    stops.push(() => signal.removeEventListener("abort", onAbort));
    stops.push(wait.changes(check));
    stops.push(
      agent.onExit((exit) => {
        const process = wait.names.process ?? wait.names.agent;
        settle(
          wait.exited?.(exit) ??
            new HarnessStartError(harness, `${process} exited (${exit}) while starting`, {
              stderrTail: agent.stderrTail(),
            }),
        );
      }),
    );
    if (signal.aborted) onAbort();
    else check();
  });
}
