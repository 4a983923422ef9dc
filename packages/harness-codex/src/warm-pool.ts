// Warm app-servers (`options: { warm: true }`): one `codex app-server` per worker process
// and environment, serving each session on its own ephemeral thread with that session's
// MCP servers, provider, workspace and approvals. What is shared is only what the key
// says is equal: the executable, the environment (credentials included) and the login
// copied into the home. Sessions with different credentials never share a process.
import { rmSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManagedProcess, registerWarmPool, type CapturedServer } from "@jest-m3/core/harness";
import { AppServerClient } from "./app-server-client.js";
import { APP_SERVER_ARGS } from "./config.js";
import { copyHostLogin, codexEnvironment, type CodexHomes } from "./home.js";
import { CLIENT_INFO } from "./readiness.js";

/** How long an unused warm app-server stays up before it is stopped. */
const IDLE_MS = 20_000;

interface Warm {
  readonly client: AppServerClient;
  readonly root: string;
  users: number;
  idle: NodeJS.Timeout | undefined;
}

const pool = new Map<string, Promise<Warm>>();
const live = new Set<Warm>();
let exitHook = false;

/** What makes two sessions able to share an app-server: everything it was started with. */
export interface WarmKey {
  readonly executable: string;
  readonly env: Readonly<Record<string, string>>;
  /** The login copied into the shared CODEX_HOME, if any. */
  readonly authFile: string | undefined;
}

function keyOf(key: WarmKey): string {
  const env = Object.entries(key.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([key.executable, env, key.authFile ?? null, APP_SERVER_ARGS]);
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

function stopNow(warm: Warm): void {
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

async function start(key: WarmKey, timeoutMs: number): Promise<Warm> {
  const root = await mkdtemp(join(tmpdir(), "m3-codex-warm-"));
  const homes: CodexHomes = { codexHome: join(root, "codex-home"), home: join(root, "home") };
  await mkdir(homes.codexHome, { mode: 0o700 });
  await mkdir(homes.home, { mode: 0o700 });
  if (key.authFile !== undefined) await copyHostLogin(key.authFile, homes);
  const child = new ManagedProcess({
    label: "codex app-server (warm)",
    command: key.executable,
    args: [...APP_SERVER_ARGS],
    env: codexEnvironment(key.env, homes),
    cwd: root,
  });
  const client = new AppServerClient(child);
  const warm: Warm = { client, root, users: 0, idle: undefined };
  live.add(warm);
  if (!exitHook) {
    exitHook = true;
    // Nothing outlives the worker: every warm app-server (and its group) goes with it.
    process.once("exit", () => [...live].forEach(stopNow));
  }
  try {
    await child.spawned;
    await client.request(
      "initialize",
      { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true } },
      { timeoutMs },
    );
    client.notify("initialized");
  } catch (error) {
    stopNow(warm);
    throw error;
  }
  void child.exited.then(() => {
    live.delete(warm);
    for (const [name, entry] of pool) {
      void entry.then(
        (found) => found === warm && pool.delete(name),
        () => undefined,
      );
    }
    rmSync(root, { recursive: true, force: true });
  });
  return warm;
}

/** A session's hold on a warm app-server; `release()` once its thread is done. */
export interface WarmLease {
  readonly client: AppServerClient;
  release(): void;
}

/**
 * The warm app-server for `key`, started (and initialized) on first use. Concurrent
 * sessions with the same key share it, each on its own thread.
 */
export async function acquireWarm(key: WarmKey, timeoutMs: number): Promise<WarmLease> {
  const name = keyOf(key);
  let entry = pool.get(name);
  if (!entry) {
    entry = start(key, timeoutMs);
    pool.set(name, entry);
    entry.catch(() => pool.delete(name));
  }
  const warm = await entry;
  if (warm.client.exitDescription !== undefined) {
    pool.delete(name);
    return acquireWarm(key, timeoutMs);
  }
  warm.users++;
  if (warm.idle) clearTimeout(warm.idle);
  warm.idle = undefined;
  setRef(warm, true);
  let released = false;
  return {
    client: warm.client,
    release: () => {
      if (released) return;
      released = true;
      warm.users--;
      if (warm.users > 0) return;
      setRef(warm, false);
      warm.idle = setTimeout(() => {
        pool.delete(name);
        void warm.client.close(500).finally(() => stopNow(warm));
      }, IDLE_MS);
      warm.idle.unref();
    },
  };
}

/** Stops every warm app-server now (for tests and teardown). */
export async function stopWarmAppServers(): Promise<void> {
  const all = [...live];
  pool.clear();
  await Promise.all(
    all.map(async (warm) => {
      if (warm.idle) clearTimeout(warm.idle);
      await warm.client.close(500);
      stopNow(warm);
    }),
  );
}

// Stopped by the runner when its pools can serve no later session (the end of a test file).
registerWarmPool(stopWarmAppServers);

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
 * Stops the MCP server processes a thread's config started in a shared app-server (Codex
 * keeps them while the app-server runs, even for an unsubscribed ephemeral thread): the
 * app-server's children whose command line is exactly one of `servers`' (each carries its
 * session's own capture channel, so no other session's server matches). Linux only; elsewhere
 * the kit's close stops them. Resolves once they are gone.
 */
export async function stopThreadServers(
  appServerPid: number | undefined,
  servers: readonly CapturedServer[],
  graceMs: number,
): Promise<void> {
  if (appServerPid === undefined || process.platform !== "linux") return;
  const wanted = servers
    .filter((server) => server.kind === "stdio")
    .map((server) => JSON.stringify([server.command, ...server.args]));
  const mine = childrenOf(appServerPid).filter((pid) => {
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
