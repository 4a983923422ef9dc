// Warm app-servers (`options: { warm: true }`): one `codex app-server` per worker process
// and environment, serving each session on its own ephemeral thread with that session's
// MCP servers, provider, workspace and approvals (a shared lease). What is shared is only
// what the key says is equal: the executable, the environment (credentials included) and
// the login copied into the home. Sessions with different credentials never share a process.
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  announceWarmProcess,
  holdProcess,
  killProcessGroup,
  ManagedProcess,
  WarmPool,
  type WarmLease,
} from "@jest-m3/core/adapter-kit";
import { AppServerClient } from "./app-server-client.js";
import { copyHostLogin, codexEnvironment, createHomes } from "./home.js";

/** How long an unused warm app-server stays up before it is stopped. */
const IDLE_MS = 20_000;

/** A warm app-server and the folder of its homes. */
export interface WarmAppServer {
  readonly client: AppServerClient;
  readonly root: string;
}

/** What makes two sessions able to share an app-server: everything it was started with. */
export interface WarmKey {
  readonly executable: string;
  readonly env: Readonly<Record<string, string>>;
  /** The login copied into the shared CODEX_HOME, if any. */
  readonly authFile: string | undefined;
  /** The app-server's command line (which of Codex's own tools are on). */
  readonly args: readonly string[];
  /** How long `initialize` may take. */
  readonly timeoutMs: number;
}

function keyOf(key: WarmKey): string {
  const env = Object.entries(key.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([key.executable, env, key.authFile ?? null, key.args]);
}

function stopNow(warm: WarmAppServer): void {
  killProcessGroup(warm.client.process.pid);
  rmSync(warm.root, { recursive: true, force: true });
}

async function start(key: WarmKey): Promise<WarmAppServer> {
  const root = await mkdtemp(join(tmpdir(), "m3-codex-warm-"));
  const homes = await createHomes(root);
  if (key.authFile !== undefined) await copyHostLogin(key.authFile, homes);
  const child = new ManagedProcess({
    label: "codex app-server (warm)",
    command: key.executable,
    args: [...key.args],
    env: codexEnvironment(key.env, homes),
    cwd: root,
  });
  // In the run's process ledger, so an interrupted run stops it too.
  announceWarmProcess({ pid: child.pid, label: child.launch.label, command: child.launch.command });
  const warm: WarmAppServer = { client: new AppServerClient(child), root };
  try {
    await child.spawned;
    await warm.client.initialize({ timeoutMs: key.timeoutMs });
  } catch (error) {
    stopNow(warm);
    throw error;
  }
  // A warm app-server that dies leaves the pool; the next session starts anew.
  warm.client.agent.onExit(() => void pool.discard(warm));
  return warm;
}

const pool = new WarmPool<WarmKey, WarmAppServer>({
  lease: "shared",
  idleMs: IDLE_MS,
  start,
  alive: (warm) => warm.client.agent.exitDescription === undefined,
  stop: async (warm) => {
    await warm.client.close(500);
    stopNow(warm);
  },
  kill: stopNow,
  hold: (warm, ref) => holdProcess(warm.client.process.child, ref),
});

/**
 * The warm app-server for `key`, started (and initialized) on first use. Concurrent
 * sessions with the same key share it, each on its own thread.
 */
export function acquireWarm(key: WarmKey): Promise<WarmLease<WarmAppServer>> {
  return pool.acquire(keyOf(key), key);
}

/** Stops every warm app-server now (for tests and teardown). */
export function stopWarmAppServers(): Promise<void> {
  return pool.stopAll();
}
