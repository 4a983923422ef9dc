// Warm agents (`options: { warm: true }`): one ACP agent process per worker process and
// key, serving each jest-m3 session as its own ACP session (`session/new` with that
// session's workspace and MCP servers). What is shared is only what the key says is equal:
// everything the process was started with — the executable, its arguments, its
// environment (credential values included) and every file the profile wrote into its home
// (Gemini CLI's policy file and settings, OpenCode's configuration with the provider and
// the permission map). Sessions that differ in any of it never share a process.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { ManagedProcess, registerWarmPool, type CapturedServer } from "@jest-m3/core/harness";
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

async function filesUnder(root: string): Promise<[string, string][]> {
  const found: [string, string][] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) found.push([relative(root, path), await readFile(path, "utf8")]);
    }
  };
  await walk(root);
  return found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The key of a warm agent: the executable, arguments and environment with the home's
 * folder written as `<home>` (each start plans into a fresh folder), and the name and
 * content of every file in the home. Two sessions share a process only when all of it is
 * equal. The key lives in memory only (it holds credential values).
 */
export async function warmKey(start: WarmStart): Promise<string> {
  const root = start.home.root;
  const neutral = (text: string): string => text.split(root).join("<home>");
  const env = Object.entries(start.env)
    .map(([name, value]) => [name, neutral(value)])
    .sort(([a], [b]) => ((a ?? "") < (b ?? "") ? -1 : (a ?? "") > (b ?? "") ? 1 : 0));
  return JSON.stringify([
    start.harness,
    start.command,
    start.args.map(neutral),
    env,
    start.stop,
    await filesUnder(root),
  ]);
}

function setRef(warm: Warm, ref: boolean): void {
  const child = warm.client.process.child;
  const handles: Array<{ ref?: () => void; unref?: () => void }> = [
    child,
    child.stdin as unknown as { ref?: () => void; unref?: () => void },
    child.stdout as unknown as { ref?: () => void; unref?: () => void },
    child.stderr as unknown as { ref?: () => void; unref?: () => void },
  ];
  for (const handle of handles) (ref ? handle.ref : handle.unref)?.call(handle);
}

/** Kills the agent's whole process group at once and removes its home (worker exit). */
function killNow(warm: Warm): void {
  live.delete(warm);
  const pid = warm.client.process.pid;
  if (pid !== undefined) {
    try {
      process.kill(process.platform === "win32" ? pid : -pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
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
  return pid === undefined || process.platform !== "linux" || alive(pid);
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

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Stops the MCP server processes a session's `session/new` started in a shared agent (the
 * agents keep them while they run, even after `session/close`): the agent's children
 * whose command line is exactly one of `servers`' (each carries its session's own capture
 * channel, so no other session's server matches). Linux only; elsewhere the agent keeps
 * them until it stops. Resolves once they are gone.
 */
export async function stopSessionServers(
  agentPid: number | undefined,
  servers: readonly CapturedServer[],
  graceMs: number,
): Promise<void> {
  if (agentPid === undefined || process.platform !== "linux") return;
  const wanted = servers
    .filter((server) => server.kind === "stdio")
    .map((server) => JSON.stringify([server.command, ...server.args]));
  if (wanted.length === 0) return;
  const mine = childrenOf(agentPid).filter((pid) => {
    const line = commandLine(pid);
    return line !== undefined && wanted.includes(JSON.stringify(line));
  });
  for (const pid of mine) process.kill(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (mine.some(alive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const pid of mine.filter(alive)) process.kill(pid, "SIGKILL");
}
