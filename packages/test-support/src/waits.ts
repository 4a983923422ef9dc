/**
 * Waits without fixed sleeps: on an event being recorded ({@link EventLog}), or, where the
 * thing waited for has no event to listen to (a model's journal, a process going away), on a
 * condition checked every few milliseconds until a deadline ({@link waitFor}).
 */

/** A pending wait of an {@link EventLog}. */
interface Waiter<T> {
  readonly matches: (item: T) => boolean;
  readonly resolve: (item: T) => void;
}

/**
 * An array of what something recorded (a launch's HarnessEvents) that can be awaited: every
 * `push` wakes the waits whose predicate the new item satisfies. It compares equal to a plain
 * array of the same items; `filter`, `map` and the like return plain arrays.
 */
export class EventLog<T> extends Array<T> {
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  readonly #waiters = new Set<Waiter<T>>();

  override push(...items: T[]): number {
    const length = super.push(...items);
    for (const item of items) {
      for (const waiter of [...this.#waiters]) {
        if (!waiter.matches(item)) continue;
        this.#waiters.delete(waiter);
        waiter.resolve(item);
      }
    }
    return length;
  }

  /**
   * The first item, already recorded or still to come, that satisfies `matches`; rejects
   * naming `what` after `timeoutMs`.
   *
   * @example
   * ```ts
   * const started = await events.waitFor((event) => event.type === "agent:started", "the agent's start");
   * ```
   */
  waitFor(matches: (item: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
    const found = this.find(matches);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`));
      }, timeoutMs);
      const waiter: Waiter<T> = {
        matches,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      this.#waiters.add(waiter);
    });
  }
}

/** Waits until `condition` holds, checking every 20 ms; rejects naming `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
