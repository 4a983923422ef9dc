// Warm agents (`options: { warm: true }`): one ACP agent process per worker process and
// key, serving each jest-m3 session as its own ACP session (`session/new` with that
// session's workspace and MCP servers). What is shared is only what the key says is equal:
// everything the process was started with — the executable, its arguments, its
// environment (credential values included) and every file the profile wrote into its home
// (Gemini CLI's policy file and settings, OpenCode's configuration with the provider and
// the permission map). Sessions that differ in any of it never share a process.
import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  announceWarmProcess,
  holdProcess,
  isProcessAlive,
  killProcessGroup,
  ManagedProcess,
  stopSessionServers,
  WarmPool,
  warmStartKey,
} from "@jest-m3/core/adapter-kit";
import { AcpClient, type StopSignal } from "./acp-client.js";
import type { HarnessLaunch } from "@jest-m3/core/harness";
import type { AgentHome } from "./home.js";
import type { InitializeResponse } from "./protocol.js";
import { INITIALIZE_PARAMS } from "./readiness.js";

/** How long an unused warm agent stays up before it is stopped. */
const IDLE_MS = 20_000;
/** How long a warm agent gets to exit on its own when it is stopped. */
const STOP_GRACE_MS = 1000;
/** How long leaving a warm agent's session waits for `session/close`, and for its servers. */
const CLOSE_GRACE_MS = 2000;

/** Everything one warm agent process is started with (see {@link warmKey}). */
export interface WarmStart {
  /** The agent's name in messages, e.g. `Gemini CLI`. */
  readonly agent: string;
  /** The harness kind, e.g. `gemini` (part of the key). */
  readonly harness: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The fresh home the profile planned into; the pool owns it from here on. */
  readonly home: AgentHome;
  readonly stop: StopSignal;
}

interface Warm {
  readonly client: AcpClient;
  readonly root: string;
  readonly initialize: InitializeResponse;
  readonly stop: StopSignal;
}

/**
 * The key of a warm agent: everything it is started with, the home's folder written as
 * `<root>` (each start plans into a fresh folder), and the name and content of every file
 * in the home. Two sessions share a process only when all of it is equal. The key lives
 * in memory only (it holds credential values).
 */
export function warmKey(start: WarmStart): Promise<string> {
  return warmStartKey({
    command: start.command,
    args: start.args,
    env: start.env,
    root: start.home.root,
    extra: [start.harness, start.stop],
  });
}

/** Kills the agent's whole process group at once and removes its home (worker exit). */
function killNow(warm: Pick<Warm, "client" | "root">): void {
  killProcessGroup(warm.client.process.pid);
  rmSync(warm.root, { recursive: true, force: true });
}

/** Stops the agent as its profile says, then whatever is left of its group; removes its home. */
async function stopWarm(warm: Warm): Promise<void> {
  await warm.client.close(warm.stop, STOP_GRACE_MS);
  killNow(warm);
}

function running(warm: Warm): boolean {
  const child = warm.client.process.child;
  if (child.exitCode !== null || child.signalCode !== null) return false;
  // A process killed a moment ago may not be reaped yet: ask the system too.
  const pid = child.pid;
  return pid === undefined || process.platform !== "linux" || isProcessAlive(pid);
}

async function start(spec: WarmStart & { readonly timeoutMs: number }): Promise<Warm> {
  const cwd = join(spec.home.root, "cwd");
  await mkdir(cwd, { recursive: true, mode: 0o700 });
  const child = new ManagedProcess({
    label: `${spec.agent} (${spec.harness}, warm)`,
    command: spec.command,
    args: [...spec.args],
    env: spec.env,
    cwd,
  });
  // In the run's process ledger, so an interrupted run stops it too.
  announceWarmProcess({ pid: child.pid, label: child.launch.label, command: child.launch.command });
  const client = new AcpClient(spec.agent, child);
  // Until the pool holds it, nothing else would stop it when the worker exits.
  const onExit = (): void => killNow({ client, root: spec.home.root });
  process.once("exit", onExit);
  try {
    await child.spawned;
    await client.connect();
    const initialize = await client.request("initialize", INITIALIZE_PARAMS, {
      timeoutMs: spec.timeoutMs,
    });
    const warm: Warm = { client, root: spec.home.root, initialize, stop: spec.stop };
    // A warm agent that dies takes its group and home with it; the next session starts anew.
    child.child.once("exit", () => void pool.discard(warm));
    return warm;
  } catch (error) {
    await client.close(spec.stop, 300);
    rmSync(spec.home.root, { recursive: true, force: true });
    throw error;
  } finally {
    process.removeListener("exit", onExit);
  }
}

const pool = new WarmPool<WarmStart & { readonly timeoutMs: number }, Warm>({
  lease: "shared",
  idleMs: IDLE_MS,
  start,
  alive: running,
  stop: stopWarm,
  kill: killNow,
  hold: (warm, ref) => holdProcess(warm.client.process.child, ref),
});

/** A session's hold on a warm agent; `release()` once its ACP session is left. */
export interface WarmLease {
  readonly client: AcpClient;
  /** The agent's answer to `initialize` (capabilities, `session/close`). */
  readonly initialize: InitializeResponse;
  /** True when the process was started for this session (a cold start). */
  readonly started: boolean;
  /** The root of the warm agent's home (its first session's, kept by the pool). */
  readonly homeRoot: string;
  release(): void;
}

/**
 * The warm agent for `spec`'s key, started (and initialized) on first use; `spec.home`
 * becomes its home, or is removed when a live process of the same key already runs. A
 * process that died is replaced. Concurrent sessions with the same key share it, each with
 * its own ACP session.
 */
export async function acquireWarmAgent(spec: WarmStart, timeoutMs: number): Promise<WarmLease> {
  const lease = await pool.acquire(await warmKey(spec), { ...spec, timeoutMs });
  if (!lease.started) await rm(spec.home.root, { recursive: true, force: true });
  const { client, initialize, root } = lease.warm;
  return {
    client,
    initialize,
    started: lease.started,
    homeRoot: root,
    release: () => void lease.release(),
  };
}

/**
 * Stops every warm agent of this worker now (for tests and teardown): each as its profile
 * stops it, then its process group; their homes are removed. Warm agents also stop after
 * 20 s unused, and always when the worker exits.
 *
 * @example
 * ```ts
 * import { stopWarmAcpAgents } from "@jest-m3/harness-acp";
 * afterAll(() => stopWarmAcpAgents());
 * ```
 */
export function stopWarmAcpAgents(): Promise<void> {
  return pool.stopAll();
}

/** Whether the agent advertised `session/close` in its `initialize` answer. */
function closesSessions(lease: WarmLease): boolean {
  const capabilities = lease.initialize.agentCapabilities?.sessionCapabilities as
    { close?: unknown } | null | undefined;
  return capabilities?.close !== undefined && capabilities.close !== null;
}

/**
 * Leaves an ACP session of a warm agent so that nothing of it keeps running:
 * `session/close` where the agent offers it, then its MCP servers stopped (the agents keep
 * them either way), then the lease released.
 */
export async function leaveWarmSession(
  client: AcpClient,
  lease: WarmLease,
  sessionId: string | undefined,
  launch: HarnessLaunch,
): Promise<void> {
  if (sessionId !== undefined && closesSessions(lease) && client.exitDescription === undefined) {
    await client
      .request("session/close", { sessionId }, { timeoutMs: CLOSE_GRACE_MS })
      .catch(() => undefined);
  }
  await stopSessionServers(client.process.pid, launch.servers, CLOSE_GRACE_MS);
  lease.release();
}
