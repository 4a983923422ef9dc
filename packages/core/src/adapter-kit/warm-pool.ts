/**
 * A warm pool (`options: { warm: true }`): agent processes kept per worker and key for the
 * next session. A `shared` lease lets every session of a key use one process at once (an
 * agent serving each session on its own thread); an `exclusive` lease gives a process to
 * one session at a time (a second session of the key meanwhile gets a process of its own).
 * An unused process stops after `idleMs`; all stop when the runner stops the pools (see
 * {@link stopWarmPools}) and, at once, when the worker exits. The adapter says how to start,
 * check, hold and stop its processes; the pool does the bookkeeping.
 *
 * @example
 * ```ts
 * const pool = new WarmPool<Spec, Warm>({ lease: "exclusive", idleMs: 20_000, start, alive, stop, kill, hold });
 * const lease = await pool.acquire(await warmStartKey(spec), spec);
 * await lease.release(true); // reset by the session: the next one may have it
 * ```
 */
import { registerWarmPool } from "./warm-registry.js";

/** How sessions of one key share a warm process. */
export type WarmLeaseKind = "shared" | "exclusive";

/** What a pool needs from its adapter, for processes `W` started from specs `S`. */
export interface WarmPoolOptions<S, W> {
  readonly lease: WarmLeaseKind;
  /**
   * A `shared` lease's limit: how many sessions one process serves at once (default: no
   * limit). The next session of the key past it gets a process of its own, as a second
   * session does under an `exclusive` lease (whose limit is 1).
   */
  readonly maxSessions?: number;
  /** How long an unused process stays up. */
  readonly idleMs: number;
  /** Starts a process (and whatever handshake makes it usable); cleans up itself on failure. */
  start(spec: S, key: string): Promise<W>;
  /** True while the process can serve a session. */
  alive(warm: W): boolean;
  /** Stops the process and removes what it owns. */
  stop(warm: W): Promise<void>;
  /** Kills the process group now, synchronously (the worker is exiting). */
  kill(warm: W): void;
  /** Lets an idle process not hold the worker open (`false`), or holds it again. */
  hold(warm: W, ref: boolean): void;
}

/** A session's hold on a warm process. */
export interface WarmLease<W> {
  readonly warm: W;
  /** True when the process was started for this lease (a cold start). */
  readonly started: boolean;
  /**
   * Hands the process back. `reusable` (default true) says the session left it able to
   * serve another: for an exclusive lease, that the session reset it; for a shared one,
   * that it still answers (a process that stopped answering is stopped, with every session
   * it serves). A shared process is otherwise kept while any session holds it. Idempotent.
   */
  release(reusable?: boolean): Promise<void>;
}

interface Entry<W> {
  readonly warm: W;
  readonly key: string;
  users: number;
  idle: NodeJS.Timeout | undefined;
}

/** A process being started, and the sessions waiting on it (the starter too). */
interface Starting<W> {
  entry: Promise<Entry<W>>;
  sessions: number;
}

/** Agent processes kept for the next session; see the module's description. */
export class WarmPool<S, W> {
  private readonly entries = new Set<Entry<W>>();
  /** A shared key's process being started, with the sessions waiting on it (the starter too). */
  private readonly starting = new Map<string, Starting<W>>();
  /** Sessions one process serves at once. */
  private readonly limit: number;
  /**
   * Kills the pool's processes if the process exits with some still running. Added with the
   * first process and removed with the last: a Jest worker runs file after file on one
   * `process`, each file with pools of its own, and a hook left behind would keep every
   * finished file's pool (and its modules) alive.
   */
  private exitHook: (() => void) | undefined;

  constructor(private readonly options: WarmPoolOptions<S, W>) {
    const { lease, maxSessions } = options;
    if (maxSessions !== undefined && !(Number.isInteger(maxSessions) && maxSessions >= 1)) {
      throw new RangeError(`WarmPool: maxSessions must be a whole number ≥ 1, got ${maxSessions}`);
    }
    this.limit = lease === "exclusive" ? 1 : (maxSessions ?? Infinity);
    // Stopped by the runner when the pool can serve no later session (a test file's end).
    registerWarmPool(() => this.stopAll());
  }

  /** Every process of the pool, leased or idle. */
  get all(): W[] {
    return [...this.entries].map((entry) => entry.warm);
  }

  /**
   * A process for `key`: an idle (exclusive) or running (shared, below its limit) one, else
   * one started from `spec`.
   */
  async acquire(key: string, spec: S): Promise<WarmLease<W>> {
    const { lease, alive } = this.options;
    for (const entry of [...this.entries].reverse()) {
      if (entry.key !== key || entry.users >= this.limit) continue;
      if (alive(entry.warm)) return this.lease(entry, false);
      await this.discard(entry.warm);
    }
    const pending = lease === "shared" ? this.starting.get(key) : undefined;
    if (pending && pending.sessions < this.limit) {
      pending.sessions++;
      return this.lease(await pending.entry, false, true);
    }
    const start: Starting<W> = { entry: undefined as unknown as Promise<Entry<W>>, sessions: 1 };
    start.entry = this.options.start(spec, key).then((warm) => this.add(warm, key, start));
    if (lease === "shared") this.starting.set(key, start);
    try {
      return this.lease(await start.entry, true, true);
    } finally {
      if (this.starting.get(key) === start) this.starting.delete(key);
    }
  }

  /** Takes a process out of the pool and stops it (it died, or could not be reset). */
  async discard(warm: W): Promise<void> {
    const entry = [...this.entries].find((candidate) => candidate.warm === warm);
    if (!entry) return;
    this.entries.delete(entry);
    if (entry.idle) clearTimeout(entry.idle);
    await this.options.stop(warm);
    // Unhooked once stopped: a process still stopping is killed if the process exits.
    if (this.entries.size === 0 && this.exitHook) {
      process.removeListener("exit", this.exitHook);
      this.exitHook = undefined;
    }
  }

  /** Stops every process of the pool now, leased or idle (tests, teardown). */
  async stopAll(): Promise<void> {
    await Promise.all(this.all.map((warm) => this.discard(warm)));
  }

  /**
   * A started process joins the pool in one step with every session that waited on its
   * start counted as its user, and its start takes no more sessions: a session that comes
   * next finds it among the entries with those places taken, not free until the waiting
   * sessions' leases are made.
   */
  private add(warm: W, key: string, start: Starting<W>): Entry<W> {
    if (this.starting.get(key) === start) this.starting.delete(key);
    const entry: Entry<W> = { warm, key, users: start.sessions, idle: undefined };
    this.entries.add(entry);
    if (!this.exitHook) {
      this.exitHook = () => this.all.forEach((each) => this.options.kill(each));
      process.once("exit", this.exitHook);
    }
    return entry;
  }

  /** A lease on `entry`; `counted` when {@link WarmPool.add} already counted its session. */
  private lease(entry: Entry<W>, started: boolean, counted = false): WarmLease<W> {
    if (!counted) entry.users++;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = undefined;
    this.options.hold(entry.warm, true);
    let released: Promise<void> | undefined;
    const release = async (reusable: boolean): Promise<void> => {
      entry.users--;
      if (!this.entries.has(entry)) return;
      if (!reusable || !this.options.alive(entry.warm)) {
        await this.discard(entry.warm);
        return;
      }
      if (entry.users > 0) return;
      this.options.hold(entry.warm, false);
      entry.idle = setTimeout(() => void this.discard(entry.warm), this.options.idleMs);
      entry.idle.unref();
    };
    return {
      warm: entry.warm,
      started,
      release: (reusable = true) => (released ??= release(reusable)),
    };
  }
}
