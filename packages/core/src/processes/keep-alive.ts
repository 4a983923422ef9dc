/**
 * A kit never holds its host process open: its timers, sockets and child handles are
 * unref'd, so a test runner can exit when its tests are done. While a caller waits on
 * such work (a readiness probe starting a slow agent), nothing else may keep Node's event
 * loop alive, and Node would end the process silently, with status 0, mid-wait.
 */

/**
 * Waits for `work` with the event loop held open until it settles.
 *
 * @example
 * ```ts
 * const readiness = await keepingAlive(harness.readiness(context));
 * ```
 */
export async function keepingAlive<T>(work: Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, 60_000);
  try {
    return await work;
  } finally {
    clearInterval(hold);
  }
}
