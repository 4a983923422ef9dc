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
  registerWarmPool,
  warmStartKey,
} from "@jest-m3/core/harness";
import { AcpClient, type StopSignal } from "./acp-client.js";
import type { AgentHome } from "./home.js";
import type { InitializeResponse } from "./protocol.js";
import { INITIALIZE_PARAMS } from "./readiness.js";

/** How long an unused warm agent stays up before it is stopped. */
const IDLE_MS = 20_000;
/** How long a warm agent gets to exit on its own when it is stopped. */
const STOP_GRACE_MS = 1000;

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
  users: number;
  idle: NodeJS.Timeout | undefined;
}

const pool = new Map<string, Promise<Warm>>();
const live = new Set<Warm>();
let exitHook = false;

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

function setRef(warm: Warm, ref: boolean): void {
  holdProcess(warm.client.process.child, ref);
}

/** Kills the agent's whole process group at once and removes its home (worker exit). */
function killNow(warm: Warm): void {
  live.delete(warm);
  killProcessGroup(warm.client.process.pid);
  rmSync(warm.root, { recursive: true, force: true });
}

/** Stops the agent as its profile says, then whatever is left of its group; removes its home. */
async function stopWarm(warm: Warm): Promise<void> {
  if (warm.idle) clearTimeout(warm.idle);
  await warm.client.close(warm.stop, STOP_GRACE_MS);
  killNow(warm);
}

function forget(warm: Warm): void {
  for (const [name, entry] of pool) {
    void entry.then(
      (found) => found === warm && pool.get(name) === entry && pool.delete(name),
      () => undefined,
    );
  }
}

async function start(spec: WarmStart, timeoutMs: number): Promise<Warm> {
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
  const placeholder = {
    client,
    root: spec.home.root,
    stop: spec.stop,
    users: 0,
    idle: undefined,
  };
  live.add(placeholder as Warm);
  if (!exitHook) {
    exitHook = true;
    // Nothing outlives the worker: every warm agent (and its group) goes with it.
    process.once("exit", () => [...live].forEach(killNow));
  }
  try {
    await child.spawned;
    await client.connect();
    const initialize = await client.request("initialize", INITIALIZE_PARAMS, { timeoutMs });
    const warm: Warm = Object.assign(placeholder, { initialize });
    // A warm agent that dies takes its group and home with it; the next session starts anew.
    child.child.once("exit", () => {
      forget(warm);
      if (live.has(warm)) void stopWarm(warm);
    });
    return warm;
  } catch (error) {
    live.delete(placeholder as Warm);
    await client.close(spec.stop, 300);
    rmSync(spec.home.root, { recursive: true, force: true });
    throw error;
  }
}

/** A session's hold on a warm agent; `release()` once its ACP session is left. */
export interface WarmLease {
  readonly client: AcpClient;
  /** The agent's answer to `initialize` (capabilities, `session/close`). */
  readonly initialize: InitializeResponse;
  /** True when the process was started for this session (a cold start). */
  readonly started: boolean;
  release(): void;
}

function running(warm: Warm): boolean {
  const child = warm.client.process.child;
  if (!live.has(warm) || child.exitCode !== null || child.signalCode !== null) return false;
  // A process killed a moment ago may not be reaped yet: ask the system too.
  const pid = child.pid;
  return pid === undefined || process.platform !== "linux" || isProcessAlive(pid);
}

/**
 * The warm agent for `spec`'s key, started (and initialized) on first use; `spec.home`
 * becomes its home, or is removed when a live process of the same key already runs. A
 * process that died is replaced. Concurrent sessions with the same key share it, each with
 * its own ACP session.
 */
export async function acquireWarmAgent(spec: WarmStart, timeoutMs: number): Promise<WarmLease> {
  const name = await warmKey(spec);
  let warm: Warm | undefined;
  let entry: Promise<Warm> | undefined;
  let started = false;
  while (!warm) {
    entry = pool.get(name);
    if (!entry) {
      started = true;
      const fresh = start(spec, timeoutMs);
      entry = fresh;
      pool.set(name, fresh);
      fresh.catch(() => pool.get(name) === fresh && pool.delete(name));
      warm = await fresh;
      break;
    }
    const found = await entry.catch(() => undefined);
    if (found && running(found)) {
      warm = found;
      await rm(spec.home.root, { recursive: true, force: true });
    } else if (pool.get(name) === entry) {
      pool.delete(name); // it died or never started: the next round starts a new one
    }
  }
  const held = warm;
  const heldEntry = entry;
  held.users++;
  if (held.idle) clearTimeout(held.idle);
  held.idle = undefined;
  setRef(held, true);
  let released = false;
  return {
    client: held.client,
    initialize: held.initialize,
    started,
    release: () => {
      if (released) return;
      released = true;
      held.users--;
      if (held.users > 0) return;
      setRef(held, false);
      held.idle = setTimeout(() => {
        if (pool.get(name) === heldEntry) pool.delete(name);
        void stopWarm(held);
      }, IDLE_MS);
      held.idle.unref();
    },
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
export async function stopWarmAcpAgents(): Promise<void> {
  const all = [...live];
  pool.clear();
  await Promise.all(all.map(stopWarm));
}

// Stopped by the runner when its pools can serve no later session (the end of a test file).
registerWarmPool(stopWarmAcpAgents);
