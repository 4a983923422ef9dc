// Warm Pi (`options: { warm: true }`): one `pi --mode rpc` process per Jest worker and key,
// serving one session after another. One process is one conversation at a time, so a
// process is leased to one session; a second session of the same key that opens meanwhile
// gets a process of its own. What is shared is only what the key says is equal: everything
// the process was started with (the executable, its arguments, its environment with the
// provider and credential values, and every file written into its home: models.json,
// settings.json). It is started without MCP servers, in a folder of its own: each session
// binds its own servers through the bridge's command, and leaves by `new_session` (a new
// conversation; Pi reloads the bridge, which first closes the session's servers). A process
// that does not confirm that is stopped, never handed on.
import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  announceWarmProcess,
  holdProcess,
  isProcessAlive,
  killProcessGroup,
  ManagedProcess,
  WarmPool,
  warmStartKey,
} from "@jest-m3/core/adapter-kit";
import type { PiState } from "./protocol.js";
import { PiRpcClient } from "./rpc-client.js";

/** How long an unused warm Pi stays up before it is stopped. */
const IDLE_MS = 20_000;
/** How long a warm Pi gets to exit on its own when it is stopped. */
const STOP_GRACE_MS = 1000;

/** Everything one warm Pi is started with (the key: see {@link warmStartKey}). */
export interface WarmPiStart {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The fresh folder holding Pi's home (as `createPiHome` made it); the pool owns it. */
  readonly root: string;
  /** How long Pi gets to answer `get_state` after its start. */
  readonly startupTimeoutMs: number;
}

interface Warm {
  readonly client: PiRpcClient;
  readonly root: string;
}

function running(warm: Warm): boolean {
  const child = warm.client.agent.process.child;
  if (warm.client.agent.exitDescription !== undefined) return false;
  if (child.exitCode !== null || child.signalCode !== null) return false;
  return child.pid === undefined || isProcessAlive(child.pid);
}

async function start(spec: WarmPiStart): Promise<Warm> {
  const cwd = join(spec.root, "cwd");
  await mkdir(cwd, { mode: 0o700 });
  const child = new ManagedProcess({
    label: "pi (warm)",
    command: spec.command,
    args: [...spec.args],
    env: spec.env,
    cwd,
  });
  // In the run's process ledger, so an interrupted run stops it too.
  announceWarmProcess({ pid: child.pid, label: child.launch.label, command: child.launch.command });
  const warm: Warm = { client: new PiRpcClient(child), root: spec.root };
  try {
    await child.spawned;
    const state = (await warm.client.command(
      "get_state",
      {},
      { timeoutMs: spec.startupTimeoutMs },
    )) as unknown as PiState | undefined;
    if (typeof state?.sessionId !== "string") {
      throw new Error(`Pi answered get_state without a session id: ${JSON.stringify(state)}`);
    }
  } catch (error) {
    await stopWarm(warm);
    throw error;
  }
  // A warm Pi that dies takes its group and folder with it; the next session starts anew.
  warm.client.agent.onExit(() => void pool.discard(warm));
  return warm;
}

/** Stops the process (stdin closed, then its group), and removes its folder. */
async function stopWarm(warm: Warm): Promise<void> {
  await warm.client.close(STOP_GRACE_MS);
  await rm(warm.root, { recursive: true, force: true });
}

// One process is one conversation at a time: an exclusive lease.
const pool = new WarmPool<WarmPiStart, Warm>({
  lease: "exclusive",
  idleMs: IDLE_MS,
  start,
  alive: running,
  stop: stopWarm,
  kill: (warm) => {
    killProcessGroup(warm.client.agent.process.pid);
    rmSync(warm.root, { recursive: true, force: true });
  },
  hold: (warm, ref) => holdProcess(warm.client.agent.process.child, ref),
});

/** A session's hold on a warm Pi; `release()` once the session is over. */
export interface WarmPiLease {
  readonly client: PiRpcClient;
  /** The process's folder (the session's bridge status file goes there). */
  readonly root: string;
  /** True when the process was started for this session (a cold start). */
  readonly started: boolean;
  /**
   * Hands the process back: `reusable` when the session left it (see {@link leaveSession}),
   * else the process is stopped. Resolves once that is done.
   */
  release(reusable: boolean): Promise<void>;
}

/**
 * An idle warm Pi of `spec`'s key, or a new one started for it; `spec.root` becomes its
 * folder, or is removed when an idle process of the same key is reused. A process that
 * died is replaced. The process serves this session only until it is released.
 */
export async function acquireWarmPi(spec: WarmPiStart): Promise<WarmPiLease> {
  const { startupTimeoutMs: _timeout, ...start } = spec;
  const lease = await pool.acquire(await warmStartKey({ ...start, extra: ["pi"] }), spec);
  if (!lease.started) await rm(spec.root, { recursive: true, force: true });
  return {
    client: lease.warm.client,
    root: lease.warm.root,
    started: lease.started,
    release: (reusable) => lease.release(reusable),
  };
}

/**
 * Leaves a warm Pi's conversation so that the next session finds nothing of this one:
 * `new_session` (Pi starts a new conversation and reloads its extensions; the bridge's
 * `session_shutdown` closes this session's MCP clients first, and the reloaded bridge has
 * no server and no tool), checked with `get_state` (a new session id, no message). Throws
 * when any of it is not confirmed: the caller stops the process.
 */
export async function leaveSession(
  client: PiRpcClient,
  sessionId: string,
  timeoutMs: number,
): Promise<void> {
  const answer = (await client.command("new_session", {}, { timeoutMs })) as
    { cancelled?: unknown } | undefined;
  if (answer?.cancelled !== false) {
    throw new Error(`new_session answered ${JSON.stringify(answer)}`);
  }
  const state = (await client.command("get_state", {}, { timeoutMs })) as unknown as
    PiState | undefined;
  if (state?.sessionId === sessionId || state?.messageCount !== 0) {
    throw new Error(`Pi kept the conversation: get_state answered ${JSON.stringify(state)}`);
  }
}

/**
 * Stops every warm Pi of this worker now (for tests and teardown), leased or idle, each
 * with its process group; their folders are removed. Warm Pi processes also stop after
 * 20 s unused, and always when the worker exits.
 *
 * @example
 * ```ts
 * import { stopWarmPi } from "@jest-m3/harness-pi";
 * afterAll(() => stopWarmPi());
 * ```
 */
export function stopWarmPi(): Promise<void> {
  return pool.stopAll();
}

/** The process ids of this worker's warm Pi processes (for diagnosis and tests). */
export function warmPiPids(): number[] {
  return pool.all.flatMap((warm) =>
    warm.client.agent.process.pid === undefined ? [] : [warm.client.agent.process.pid],
  );
}
