/**
 * The `changes` of a {@link startupWait} for an agent that tells its startup only when asked
 * (a status request, no notifications): `ask()` at once and again `intervalMs` after each
 * answer, the wait's listener called after each answer. A failed ask ends the polling: its
 * error goes to `failed` (the check can then say so) and the listener is called once more.
 *
 * @example
 * ```ts
 * let statuses: Status[] = [];
 * let problem: unknown;
 * await startupWait({
 *   ...wait,
 *   changes: polledChanges(async () => (statuses = await client.status()), 100, (error) => (problem = error)),
 *   check: () => (problem !== undefined ? errorMessage(problem) : statuses.every((s) => s.ready)),
 * });
 * ```
 */

/** What {@link polledChanges} gives {@link startupWait}: subscribe, and the function that stops it. */
export type PolledChanges = (listener: () => void) => () => void;

/** See the module's description. */
export function polledChanges(
  ask: () => Promise<unknown>,
  intervalMs: number,
  failed: (error: unknown) => void,
): PolledChanges {
  return (listener) => {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const poll = (): void => {
      ask().then(
        () => {
          if (stopped) return;
          listener();
          if (!stopped) timer = setTimeout(poll, intervalMs);
        },
        (error: unknown) => {
          if (stopped) return;
          failed(error);
          listener();
        },
      );
    };
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  };
}
