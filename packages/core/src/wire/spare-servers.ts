import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "../processes/managed-process.js";
import type { ResolvedStdioServer } from "../servers/spec.js";
import { stdioRelayLaunch, type StdioRelayLaunch } from "./relay-launch.js";

/**
 * `M3_SPARE_SERVERS=off` turns spare servers off (every relay starts its own server, as
 * before); anything else, or unset, leaves them on where the native relay runs.
 */
export const SPARE_SERVERS_VARIABLE = "M3_SPARE_SERVERS";

/** Where a relay ran, as its hello said: what a spare for the same agent process must match. */
export interface RelayOrigin {
  /** The process that started the relay: the agent, for the agents that spawn servers themselves. */
  readonly ppid: number;
  /** The server's working folder. */
  readonly cwd: string;
  /** The inherited (allow-listed) part of the server's environment. */
  readonly inherited: Readonly<Record<string, string>>;
}

interface Spare {
  readonly key: string;
  readonly parent: number;
  readonly spec: string;
  readonly socket: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

/**
 * Spares kept ahead for one agent process and spec. Two, because a session that takes a
 * spare starts the next one then, and a short session (a warm two-turn one: about 150 ms)
 * ends before a Node server has loaded (about 300 ms); the one after it would wait.
 */
const SPARES_AHEAD = 2;

/** At most this many spares wait at once in one process, whatever the suite does. */
const MAX_SPARES = 8;

const specKey = (server: ResolvedStdioServer): string =>
  JSON.stringify([server.command, server.args, server.env, server.cwd ?? null]);

/**
 * Spare MCP servers: a server process started ahead of a session, never used before, handed
 * to the one relay that would start exactly the same process (same command, arguments,
 * folder and environment: the native relay compares them byte for byte before it takes the
 * spare, and starts its own server when they differ). Isolation forbids sharing a server
 * process between sessions, not starting the next one early: a warm agent's next session
 * then finds its server already loading, and what the session waited for is off its path.
 *
 * Spares are started only for an agent process that outlives its sessions (a warm agent,
 * seen alive after its session closed) and a spec it served twice; two wait ahead, and each
 * one taken is replaced at once: a cold agent, or a spec used once, never gets one. Unused spares are stopped with the warm pools ({@link stopSpareServers}), and by
 * themselves when this process goes away. The trace says when a session's server was a spare.
 */
export class SpareServers {
  /** By socket, oldest first. */
  private readonly waiting = new Map<string, Spare>();
  private readonly warmParents = new Set<number>();
  /** Sessions served per agent process and spec (the key of its spares). */
  private readonly served = new Map<string, number>();
  private folder: string | undefined;
  private serial = 0;

  /** The sockets of the spares that may serve `server` (the relay takes the one that matches). */
  socketsFor(server: ResolvedStdioServer): string[] {
    this.dropOrphans();
    const spec = specKey(server);
    return [...this.waiting.values()].filter((spare) => spare.spec === spec).map((s) => s.socket);
  }

  /**
   * A relay said hello. A spare it took is no longer waiting; when its agent is known to
   * outlive sessions, the next session of the same spec gets a spare now.
   */
  relayStarted(server: ResolvedStdioServer, origin: RelayOrigin, took: string | undefined): void {
    if (took === undefined) return;
    this.waiting.delete(took);
    if (this.warmParents.has(origin.ppid)) this.ensure(server, origin, this.keyOf(server, origin));
  }

  /**
   * A session's capture closed after its agent's own close: an agent still running then is
   * kept for later sessions, and the next one of the same spec gets a spare.
   */
  sessionClosed(server: ResolvedStdioServer, origin: RelayOrigin): void {
    // A relay this process started itself (no agent between) gets none: this process
    // outlives every session.
    if (origin.ppid === process.pid || !isAlive(origin.ppid)) return;
    this.warmParents.add(origin.ppid);
    // Only a spec the agent served twice gets spares: a suite whose every test has a server
    // of its own (its own call log, say) would otherwise pay for spares no one takes.
    const key = this.keyOf(server, origin);
    const served = (this.served.get(key) ?? 0) + 1;
    this.served.set(key, served);
    if (served >= 2) this.ensure(server, origin, key);
  }

  /** Stops every spare still waiting (its server was never used) and removes their sockets. */
  async stop(): Promise<void> {
    const spares = [...this.waiting.values()];
    this.waiting.clear();
    this.warmParents.clear();
    this.served.clear();
    for (const spare of spares) spare.child.kill("SIGTERM");
    await Promise.all(spares.map((spare) => spare.exited));
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }

  /** How many spares wait now (for tests and diagnosis). */
  get size(): number {
    return this.waiting.size;
  }

  /** A spare whose agent is gone would match no relay again: it stops. */
  private dropOrphans(): void {
    for (const [socket, spare] of this.waiting) {
      if (isAlive(spare.parent)) continue;
      this.waiting.delete(socket);
      this.warmParents.delete(spare.parent);
      spare.child.kill("SIGTERM");
    }
  }

  private keyOf(server: ResolvedStdioServer, origin: RelayOrigin): string {
    return JSON.stringify([specKey(server), origin.cwd, origin.inherited]);
  }

  private ensure(server: ResolvedStdioServer, origin: RelayOrigin, key: string): void {
    this.dropOrphans();
    if (process.env[SPARE_SERVERS_VARIABLE] === "off") return;
    const relay = stdioRelayLaunch();
    if (relay.kind !== "native") return; // the Node relay cannot pass a server's pipes on
    let ahead = [...this.waiting.values()].filter((spare) => spare.key === key).length;
    for (; ahead < SPARES_AHEAD && this.waiting.size < MAX_SPARES; ahead++) {
      this.park(relay, server, origin, key);
    }
  }

  private park(
    relay: StdioRelayLaunch,
    server: ResolvedStdioServer,
    origin: RelayOrigin,
    key: string,
  ): void {
    this.folder ??= mkdtempSync(join(tmpdir(), "m3-spares-"));
    const socket = join(this.folder, `${this.serial++}.sock`);
    const child = spawn(
      relay.command,
      [
        ...relay.args,
        "--park",
        socket,
        "--env-keep",
        JSON.stringify(Object.keys(server.env)),
        "--cwd",
        origin.cwd,
        "--",
        server.command,
        ...server.args,
      ],
      // The relay that would start this server sees the inherited variables and the spec's own.
      { env: { ...origin.inherited, ...server.env }, stdio: ["pipe", "pipe", "ignore"] },
    );
    const exited = new Promise<void>((resolve) => {
      child.once("error", () => resolve());
      child.once("exit", () => resolve());
    }).then(() => {
      this.waiting.delete(socket);
    });
    child.stdin?.on("error", () => undefined);
    child.stdout?.resume();
    // The spare never keeps this process alive; it stops itself when this process is gone.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    this.waiting.set(socket, {
      key,
      parent: origin.ppid,
      spec: specKey(server),
      socket,
      child,
      exited,
    });
  }
}

/** This process's spares (one set: warm agents outlive the kits that used them). */
export const spareServers = new SpareServers();

/** Stops this process's unused spare servers ({@link SpareServers.stop}). */
export function stopSpareServers(): Promise<void> {
  return spareServers.stop();
}
