/**
 * A {@link WarmPool} of agent processes that serve one session at a time, with the
 * bookkeeping every such adapter repeats: each process started in its own folder (the pool
 * owns it and adds the working directory `cwd`), announced to the run's process ledger,
 * wrapped in the adapter's client, checked by the adapter's handshake, dropped when it dies,
 * and stopped with its process group and folder. The key is {@link warmStartKey}'s: two
 * sessions share a process only when everything it was started with is equal.
 *
 * @example
 * ```ts
 * const warm = new WarmAgents({ label: "my-agent (warm)", client: (child) => new MyClient(child), ready: (client) => client.ping() });
 * const lease = await warm.acquire({ command, args, env, root });
 * await lease.release(true); // the session reset it: the next one may have it
 * ```
 */
import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { isAlive, ManagedProcess } from "../processes/managed-process.js";
import type { AgentProcess } from "./agent-process.js";
import { WarmPool, type WarmLeaseKind } from "./warm-pool.js";
import {
  holdProcess,
  killProcessGroup,
  stopSessionServers,
  warmStartKey,
  type SessionServer,
  type WarmStartSpec,
} from "./warm-processes.js";
import { announceWarmProcess, registerWarmPool } from "./warm-registry.js";

/** A client of one agent process: what the pool needs of it is the process. */
export interface WarmAgentClient {
  readonly agent: AgentProcess;
}

/** How a {@link WarmAgents} pool starts and checks its processes. */
export interface WarmAgentsOptions<C extends WarmAgentClient, S extends WarmStartSpec> {
  /** The processes' label in the run's ledger, e.g. `my-agent (warm)`. */
  readonly label: string;
  /** Default `exclusive`: one session at a time. */
  readonly lease?: WarmLeaseKind;
  /** A `shared` lease's limit of sessions on one process at once (default: none). */
  readonly maxSessions?: number;
  /** How long an unused process stays up (default 20 s). */
  readonly idleMs?: number;
  /** How long a process gets to exit once its stdin closed, when stopped (default 1 s). */
  readonly stopGraceMs?: number;
  /** Wraps a started process in the adapter's client. */
  client(process: ManagedProcess): C;
  /** The handshake that makes a process started from `spec` usable (a throw stops it). */
  ready?(client: C, spec: S): Promise<void>;
  /**
   * Ends a process as its agent needs (e.g. SIGTERM, for one that ignores its stdin
   * closing); default: its stdin closed, `stopGraceMs` to exit, then its group stopped.
   */
  close?(client: C): Promise<void>;
}

/** A session's hold on a warm agent; `release()` once the session is over. */
export interface WarmAgentLease<C> {
  readonly client: C;
  /** The process's folder (its home, as the start planned it, and `cwd`). */
  readonly root: string;
  /** True when the process was started for this session (a cold start). */
  readonly started: boolean;
  /** Hands the process back: `reusable` when the session reset it, else it is stopped. */
  release(reusable: boolean): Promise<void>;
  /**
   * Hands the process back at the session's close: reset by `reset` for the next session,
   * or stopped when a turn was still running (`midTurn`), the agent is gone, or `reset`
   * throws (its error goes to `failed`, for the session's record).
   */
  leave(
    midTurn: boolean,
    reset: () => Promise<void>,
    failed: (error: unknown) => void,
  ): Promise<void>;
  /**
   * Hands a shared process back at a session's end: `end` lets the session go on the agent
   * (closes its thread or session) and resolves whether the agent still answered; the MCP
   * servers the session started in it (`servers`, as the launch gives them) are stopped
   * (see {@link stopSessionServers}, `graceMs` each); then the process is released,
   * reusable only when it answered (else it stops, with every session it serves).
   */
  leaveShared(
    servers: readonly SessionServer[],
    end: () => Promise<boolean>,
    graceMs: number,
  ): Promise<void>;
}

interface Warm<C> {
  readonly client: C;
  readonly root: string;
}

/**
 * Warm agent processes of one adapter, per worker; see the module's description. A start
 * `S` may carry more than the key's fields (a handshake's timeout): only
 * {@link warmStartKey}'s fields tell two starts apart.
 */
export class WarmAgents<C extends WarmAgentClient, S extends WarmStartSpec = WarmStartSpec> {
  private readonly pool: WarmPool<S, Warm<C>>;
  /** Processes started and not yet through their handshake: no session holds them yet. */
  private readonly starting = new Set<Warm<C>>();
  private readonly stop: (warm: Warm<C>) => Promise<void>;

  constructor(private readonly options: WarmAgentsOptions<C, S>) {
    const stopGraceMs = options.stopGraceMs ?? 1000;
    const stop = async (warm: Warm<C>): Promise<void> => {
      await (options.close?.(warm.client) ?? warm.client.agent.close(stopGraceMs));
      await rm(warm.root, { recursive: true, force: true });
    };
    this.stop = stop;
    // A start still in its handshake when the runner stops the pools (the session that
    // asked for it gave up: an agent that never answers) stops with them, not after.
    registerWarmPool(() => this.stopStarting());
    this.pool = new WarmPool<S, Warm<C>>({
      lease: options.lease ?? "exclusive",
      ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
      idleMs: options.idleMs ?? 20_000,
      start: async (spec) => {
        const warm = await this.spawn(spec);
        this.starting.add(warm);
        try {
          await warm.client.agent.process.spawned;
          await options.ready?.(warm.client, spec);
        } catch (error) {
          await stop(warm);
          throw error;
        } finally {
          this.starting.delete(warm);
        }
        // A warm agent that dies takes its group and folder with it; the next session starts anew.
        warm.client.agent.onExit(() => void this.pool.discard(warm));
        return warm;
      },
      alive: ({ client }) => {
        const { child } = client.agent.process;
        if (client.agent.exitDescription !== undefined) return false;
        if (child.exitCode !== null || child.signalCode !== null) return false;
        // A process killed a moment ago may not be reaped yet: ask the system too.
        return child.pid === undefined || isAlive(child.pid);
      },
      stop,
      kill: (warm) => {
        killProcessGroup(warm.client.agent.pid);
        rmSync(warm.root, { recursive: true, force: true });
      },
      hold: (warm, ref) => holdProcess(warm.client.agent.process.child, ref),
    });
  }

  /**
   * An idle warm agent of `spec`'s key, or one started from it; `spec.root` becomes its
   * folder, or is removed when an idle process of the same key is reused. A process that
   * died is replaced.
   */
  async acquire(spec: S): Promise<WarmAgentLease<C>> {
    const lease = await this.pool.acquire(await warmStartKey(spec), spec);
    if (!lease.started) await rm(spec.root, { recursive: true, force: true });
    return {
      client: lease.warm.client,
      root: lease.warm.root,
      started: lease.started,
      release: (reusable) => lease.release(reusable),
      leave: async (midTurn, reset, failed) => {
        let reusable = !midTurn && lease.warm.client.agent.exitDescription === undefined;
        if (reusable) {
          try {
            await reset();
          } catch (error) {
            reusable = false;
            failed(error);
          }
        }
        await lease.release(reusable);
      },
      leaveShared: async (servers, end, graceMs) => {
        const answered = await end();
        await stopSessionServers(lease.warm.client.agent.pid, servers, graceMs);
        await lease.release(answered);
      },
    };
  }

  /** Stops every process of the pool now, leased, idle or starting, with its group and folder. */
  async stopAll(): Promise<void> {
    await Promise.all([this.pool.stopAll(), this.stopStarting()]);
  }

  /** Stops the processes still in their handshake (their start then fails). */
  private async stopStarting(): Promise<void> {
    await Promise.all([...this.starting].map((warm) => this.stop(warm)));
  }

  /** The process ids of the pool's processes (for diagnosis and tests). */
  pids(): number[] {
    return this.pool.all.flatMap(({ client }) =>
      client.agent.pid === undefined ? [] : [client.agent.pid],
    );
  }

  private async spawn(spec: WarmStartSpec): Promise<Warm<C>> {
    const cwd = join(spec.root, "cwd");
    await mkdir(cwd, { mode: 0o700 });
    const child = new ManagedProcess({
      label: this.options.label,
      command: spec.command,
      args: [...spec.args],
      env: spec.env,
      cwd,
    });
    // In the run's process ledger, so an interrupted run stops it too.
    announceWarmProcess({
      pid: child.pid,
      label: child.launch.label,
      command: child.launch.command,
      folder: spec.root,
    });
    return { client: this.options.client(child), root: spec.root };
  }
}
