// Warm app-servers (`options: { warm: true }`): one `codex app-server` per worker process
// and environment, serving each session on its own ephemeral thread with that session's
// MCP servers, provider, workspace and approvals. What is shared is only what the key
// says is equal: the executable, the environment (credentials included) and the login
// copied into the home. Sessions with different credentials never share a process.
import { rmSync } from "node:fs";
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  announceWarmProcess,
  holdProcess,
  killProcessGroup,
  ManagedProcess,
  registerWarmPool,
} from "@jest-m3/core/harness";
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
  holdProcess(warm.client.process.child, ref);
}

function stopNow(warm: Warm): void {
  live.delete(warm);
  killProcessGroup(warm.client.process.pid);
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
  // In the run's process ledger, so an interrupted run stops it too.
  announceWarmProcess({ pid: child.pid, label: child.launch.label, command: child.launch.command });
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
