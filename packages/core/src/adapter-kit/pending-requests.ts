/**
 * The table of requests an adapter sent its agent and still waits on: each with its own
 * deadline and abort signal, settled by id when the answer comes, and all rejected at once
 * when the agent exits. Protocol-free: the caller writes the request and reads the answer.
 *
 * @example
 * ```ts
 * const pending = new PendingRequests<unknown>({ timeout: (what, ms) => new AgentTimeout("My Agent", what, ms) });
 * const answer = pending.add(7, "session/new", { timeoutMs: 30_000 });
 * write({ id: 7, method: "session/new" });
 * // later, on the agent's answer:
 * pending.resolve(7, result);
 * ```
 */

/** How long to wait and when to give up, for one request. */
export interface RequestOptions {
  /** Reject with the table's timeout error when there is no answer in time. */
  readonly timeoutMs?: number;
  /** Reject with the signal's reason when it aborts (the request is not withdrawn). */
  readonly signal?: AbortSignal;
}

interface Pending<R> {
  readonly what: string;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** Requests waiting for their answers, by id. */
export class PendingRequests<R> {
  private readonly pending = new Map<string | number, Pending<R>>();

  /** @param errors - `timeout` makes the error of a request that was not answered in time. */
  constructor(private readonly errors: { timeout(what: string, timeoutMs: number): Error }) {}

  /** How many requests wait. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Waits for the answer to request `id` (`what` names it in errors). Resolves with what
   * {@link resolve} gives, rejects with what {@link reject} or {@link rejectAll} gives, on
   * the deadline, or with the signal's reason.
   */
  add(id: string | number, what: string, options: RequestOptions = {}): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const { signal, timeoutMs } = options;
      const cleanup = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason ?? new Error(`${what} was aborted`));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(this.errors.timeout(what, timeoutMs));
        }, timeoutMs);
      }
      this.pending.set(id, {
        what,
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
    });
  }

  /** What request `id` asked, or undefined when none waits under that id. */
  what(id: string | number): string | undefined {
    return this.pending.get(id)?.what;
  }

  /** Settles request `id` with its answer; false when none waits under that id. */
  resolve(id: string | number, result: R): boolean {
    const entry = this.pending.get(id);
    entry?.resolve(result);
    return entry !== undefined;
  }

  /** Rejects request `id` with `error(what)`; false when none waits under that id. */
  reject(id: string | number, error: (what: string) => unknown): boolean {
    const entry = this.pending.get(id);
    entry?.reject(error(entry.what));
    return entry !== undefined;
  }

  /** Rejects every waiting request with `error(what)` (the agent exited). */
  rejectAll(error: (what: string) => unknown): void {
    for (const entry of [...this.pending.values()]) entry.reject(error(entry.what));
    this.pending.clear();
  }
}

/**
 * `promise`, or what `late()` gives (a value, or a throw) once `ms` passed first: the wait
 * for an agent's answer that is not a request (a reply on its stream, a turn's end). The
 * timer is cleared when the promise settles first and never holds the process open.
 *
 * @example
 * ```ts
 * const answered = await within(prompted.then(() => true), 2000, () => false);
 * ```
 */
export function within<T>(promise: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
