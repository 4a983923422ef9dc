import { ClientClosed, InvalidArgument, NotificationTimeout } from "../errors.js";
import { monotonicNow } from "../evidence/clock.js";

/**
 * A notification the server sent, as the direct client received it.
 *
 * @example
 * ```ts
 * const progress = client.notifications.filter((entry) => entry.method === "notifications/progress");
 * ```
 */
export interface ReceivedNotification {
  /** The JSON-RPC method, e.g. `notifications/resources/updated`. */
  readonly method: string;
  /** Its params, as sent (`{}` when it had none). */
  readonly params: Readonly<Record<string, unknown>>;
  /** When it arrived (epoch ms, monotonic clock). */
  readonly at: number;
}

/**
 * Which notifications a {@link NotificationStream} keeps: a method, several methods, or a
 * predicate. Omitted: every notification.
 */
export type NotificationFilter =
  string | readonly string[] | ((notification: ReceivedNotification) => boolean);

/** Options of `client.listen()`. */
export interface ListenOptions {
  /** How long each wait for the next notification may take, in ms (default 5000). */
  readonly timeoutMs?: number;
  /** Also deliver matching notifications that arrived before `listen()` (default false). */
  readonly includePast?: boolean;
}

const DEFAULT_WAIT_MS = 5000;

interface Waiter {
  resolve(notification: ReceivedNotification): void;
  reject(error: Error): void;
}

/**
 * The notifications a server sent a direct client: every one in order, and the live
 * streams the test listens on. Fed by the client's recording transport.
 */
export class NotificationHub {
  private readonly all: ReceivedNotification[] = [];
  private readonly streams = new Set<NotificationStream>();
  private closed = false;

  constructor(private readonly server: string) {}

  /** Every notification received so far. */
  get received(): readonly ReceivedNotification[] {
    return this.all.slice();
  }

  /** Called for each notification from the server. */
  deliver(method: string, params: unknown): void {
    const notification: ReceivedNotification = {
      method,
      params:
        typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {},
      at: monotonicNow(),
    };
    this.all.push(notification);
    for (const stream of this.streams) stream.offer(notification);
  }

  /** A new stream of the notifications that match `filter`. */
  listen(filter: NotificationFilter | undefined, options: ListenOptions = {}): NotificationStream {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new InvalidArgument(
        `client.listen(): timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}.`,
      );
    }
    if (
      filter !== undefined &&
      typeof filter !== "string" &&
      typeof filter !== "function" &&
      !(Array.isArray(filter) && filter.every((entry) => typeof entry === "string"))
    ) {
      throw new InvalidArgument(
        `client.listen(): the filter must be a method name, an array of method names, or a predicate; got ${JSON.stringify(filter)}.`,
      );
    }
    const stream = new NotificationStream(
      this.server,
      filter,
      timeoutMs,
      () => this.streams.delete(stream),
      () => this.closed,
      (since) => this.all.filter((entry) => entry.at >= since).map((entry) => entry.method),
    );
    if (options.includePast) for (const notification of this.all) stream.offer(notification);
    this.streams.add(stream);
    return stream;
  }

  /** The client closed: every stream ends. */
  close(): void {
    this.closed = true;
    for (const stream of [...this.streams]) stream.close();
  }
}

function describeFilter(filter: NotificationFilter | undefined): string {
  if (filter === undefined) return "notification";
  if (typeof filter === "string") return filter;
  if (typeof filter === "function") return "notification matching the predicate";
  return filter.join(" or ");
}

/**
 * The notifications matching one `listen()` filter, from the moment it was created: await
 * them one by one with {@link NotificationStream.next}, several with
 * {@link NotificationStream.take}, or with `for await`. Every wait is bounded by the
 * stream's timeout and fails with `NotificationTimeout`, never hangs.
 *
 * @example
 * ```ts
 * using updates = client.listen("notifications/resources/updated", { timeoutMs: 10_000 });
 * await client.subscribeResource("demo://resource/static/document/architecture.md");
 * const update = await updates.next();
 * expect(update.params.uri).toBe("demo://resource/static/document/architecture.md");
 * ```
 */
export class NotificationStream implements AsyncIterable<ReceivedNotification>, Disposable {
  private readonly queue: ReceivedNotification[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly matched: ReceivedNotification[] = [];
  private ended = false;

  /** @internal Created by `client.listen()`. */
  constructor(
    private readonly server: string,
    private readonly filter: NotificationFilter | undefined,
    private readonly timeoutMs: number,
    private readonly detach: () => void,
    private readonly clientClosed: () => boolean,
    private readonly seenSince: (since: number) => string[],
  ) {}

  /** Every matching notification this stream has seen, consumed or not. */
  get received(): readonly ReceivedNotification[] {
    return this.matched.slice();
  }

  /** @internal */
  offer(notification: ReceivedNotification): void {
    if (this.ended || !this.matches(notification)) return;
    this.matched.push(notification);
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(notification);
    else this.queue.push(notification);
  }

  /**
   * The next matching notification: one already queued, or the next to arrive within
   * `timeoutMs` (the stream's by default).
   */
  next(options: { timeoutMs?: number } = {}): Promise<ReceivedNotification> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) {
      return Promise.reject(
        this.clientClosed()
          ? new ClientClosed(this.server, "stream.next()")
          : new InvalidArgument("stream.next() was called on a closed notification stream."),
      );
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const since = monotonicNow();
    return new Promise<ReceivedNotification>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(
          new NotificationTimeout(this.server, describeFilter(this.filter), timeoutMs, [
            ...new Set(this.seenSince(since)),
          ]),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** The next `count` matching notifications; each wait is bounded by the timeout. */
  async take(count: number, options: { timeoutMs?: number } = {}): Promise<ReceivedNotification[]> {
    if (!Number.isInteger(count) || count < 0) {
      throw new InvalidArgument(
        `stream.take(): count must be a whole number ≥ 0, got ${String(count)}.`,
      );
    }
    const taken: ReceivedNotification[] = [];
    while (taken.length < count) taken.push(await this.next(options));
    return taken;
  }

  /** Stops listening; pending waits fail. Idempotent. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.detach();
    for (const waiter of this.waiters.splice(0)) {
      waiter.reject(
        this.clientClosed()
          ? new ClientClosed(this.server, "stream.next()")
          : new InvalidArgument("the notification stream was closed while a next() waited."),
      );
    }
  }

  /** Same as {@link NotificationStream.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Yields matching notifications until the stream closes; a wait past the timeout throws. */
  async *[Symbol.asyncIterator](): AsyncIterator<ReceivedNotification> {
    while (!this.ended || this.queue.length > 0) {
      const queued = this.queue.shift();
      if (queued) {
        yield queued;
        continue;
      }
      if (this.ended) return;
      yield await this.next();
    }
  }

  private matches(notification: ReceivedNotification): boolean {
    const filter = this.filter;
    if (filter === undefined) return true;
    if (typeof filter === "string") return notification.method === filter;
    if (typeof filter === "function") return filter(notification);
    return filter.includes(notification.method);
  }
}
