// Warm Claude Code (`options: { warm: true }`): one `claude --print` process per Jest worker
// and key, serving one session after another. One process is one conversation at a time,
// so a process is leased to one session; a second session of the same key that opens
// meanwhile gets a process of its own. What is shared is only what the key says is equal:
// everything the process was started with — the executable, its arguments (model,
// allow-list rules), its environment (provider and credential values included) and every
// file written into its home (a copied login). Between sessions the process is reset (see
// endConversation): its MCP servers removed, its deny rules cleared, its conversation
// ended; a process that cannot be reset cleanly is stopped, never handed on.
import { readdirSync, rmSync } from "node:fs";
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
import type { ClaudeHomes } from "./home.js";
import type { McpServerStatus, StreamMessage } from "./protocol.js";
import { StreamJsonClient } from "./stream-json-client.js";

/** How long an unused warm process stays up before it is stopped. */
const IDLE_MS = 20_000;
/** How long a warm process gets to exit on its own when it is stopped. */
const STOP_GRACE_MS = 1000;

/** Everything one warm process is started with (see {@link warmKey}). */
export interface WarmStart {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /**
   * A fresh folder holding the process's homes (`home`, `claude-config`, as
   * `createHomes` made them); the pool owns it from here on and adds the working
   * directory `cwd`.
   */
  readonly root: string;
}

interface Warm {
  readonly client: StreamJsonClient;
  readonly root: string;
}

/**
 * The key of a warm process: the executable, arguments and environment with the root
 * folder written as `<root>` (each start plans into a fresh folder), and the name and
 * content of every file in its homes. Two sessions share a process only when all of it is
 * equal. The key lives in memory only (it holds credential values).
 */
export function warmKey(start: WarmStart): Promise<string> {
  return warmStartKey(start);
}

function homesOf(root: string): ClaudeHomes {
  return { home: join(root, "home"), configDir: join(root, "claude-config") };
}

function running(warm: Warm): boolean {
  const child = warm.client.process.child;
  if (warm.client.agent.exitDescription !== undefined) return false;
  if (child.exitCode !== null || child.signalCode !== null) return false;
  // A process killed a moment ago may not be reaped yet: ask the system too.
  return child.pid === undefined || isProcessAlive(child.pid);
}

async function start(spec: WarmStart): Promise<Warm> {
  const cwd = join(spec.root, "cwd");
  await mkdir(cwd, { mode: 0o700 });
  const child = new ManagedProcess({
    label: "claude (warm)",
    command: spec.command,
    args: [...spec.args],
    env: spec.env,
    cwd,
  });
  // In the run's process ledger, so an interrupted run stops it too.
  announceWarmProcess({ pid: child.pid, label: child.launch.label, command: child.launch.command });
  const warm: Warm = { client: new StreamJsonClient(child), root: spec.root };
  try {
    await child.spawned;
  } catch (error) {
    await stopWarm(warm);
    throw error;
  }
  // A warm process that dies takes its group and folder with it; the next session starts anew.
  warm.client.agent.onExit(() => void pool.discard(warm));
  return warm;
}

/** Stops the process (stdin closed, then its group), and removes its folder. */
async function stopWarm(warm: Warm): Promise<void> {
  await warm.client.close(STOP_GRACE_MS);
  await rm(warm.root, { recursive: true, force: true });
}

// One process is one conversation at a time: an exclusive lease.
const pool = new WarmPool<WarmStart, Warm>({
  lease: "exclusive",
  idleMs: IDLE_MS,
  start,
  alive: running,
  stop: stopWarm,
  kill: (warm) => {
    killProcessGroup(warm.client.process.pid);
    rmSync(warm.root, { recursive: true, force: true });
  },
  hold: (warm, ref) => holdProcess(warm.client.process.child, ref),
});

/** A session's hold on a warm process; `release()` once the session is over. */
export interface WarmLease {
  readonly client: StreamJsonClient;
  /** The process's homes (for Claude Code's MCP logs). */
  readonly homes: ClaudeHomes;
  /** True when the process was started for this session (a cold start). */
  readonly started: boolean;
  /**
   * Hands the process back: `reusable` when the session reset it (see
   * {@link endConversation}), else the process is stopped. Resolves once that is done.
   */
  release(reusable: boolean): Promise<void>;
}

/**
 * An idle warm process of `spec`'s key, or a new one started for it; `spec.root` becomes
 * its folder, or is removed when an idle process of the same key is reused. A process that
 * died is replaced. The process serves this session only until it is released.
 */
export async function acquireWarmClaude(spec: WarmStart): Promise<WarmLease> {
  const lease = await pool.acquire(await warmKey(spec), spec);
  if (!lease.started) await rm(spec.root, { recursive: true, force: true });
  return {
    client: lease.warm.client,
    homes: homesOf(lease.warm.root),
    started: lease.started,
    release: (reusable) => lease.release(reusable),
  };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Ends a warm process's conversation so the next session finds nothing of this one:
 * `mcp_set_servers` with no server (Claude Code stops the session's stdio servers and
 * drops their tools), checked with `mcp_status`; the deny rules cleared
 * (`apply_flag_settings` replaces the flag settings); `/clear` (Claude Code starts a new
 * conversation with empty context and says so with `conversation_reset`); then the
 * `/clear` command message rewound out of the new conversation (`rewind_conversation`), so
 * the next session's first request holds only Claude Code's one-line caveat that a local
 * command ran. Throws when any step is not confirmed: the caller stops the process.
 */
export async function endConversation(client: StreamJsonClient, timeoutMs: number): Promise<void> {
  const wait = { timeoutMs };
  await client.control({ subtype: "mcp_set_servers", servers: {} }, wait);
  const status = await client.control({ subtype: "mcp_status" }, wait);
  const left = (Array.isArray(status.mcpServers)
    ? status.mcpServers
    : []) as unknown as McpServerStatus[];
  if (left.length > 0) {
    throw new Error(
      `MCP servers still configured: ${left.map((server) => server.name).join(", ")}`,
    );
  }
  await client.control(
    { subtype: "apply_flag_settings", settings: { permissions: { deny: [] } } },
    wait,
  );
  let resetAt: string | undefined;
  let stop: (() => void) | undefined;
  const cleared = new Promise<StreamMessage>((resolve, reject) => {
    const offMessage = client.onMessage((message) => {
      if (message.type === "conversation_reset") {
        const uuid = (message as { user_message_uuid?: unknown }).user_message_uuid;
        if (typeof uuid === "string") resetAt = uuid;
      }
      if (message.type === "result") resolve(message);
    });
    const offExit = client.agent.onExit((exit) =>
      reject(new Error(`Claude Code exited (${exit})`)),
    );
    stop = () => {
      offMessage();
      offExit();
    };
  });
  try {
    if (!client.sendUser("/clear")) throw new Error("Claude Code's stdin is closed");
    const result = await within(cleared, timeoutMs, "/clear");
    if ((result as { is_error?: unknown }).is_error === true) {
      throw new Error(`/clear failed: ${JSON.stringify(result).slice(0, 300)}`);
    }
  } finally {
    stop?.();
  }
  if (resetAt === undefined) throw new Error("/clear did not reset the conversation");
  const rewound = await client.control(
    { subtype: "rewind_conversation", target_message_uuid: resetAt },
    wait,
  );
  if (rewound.rewound !== true) {
    throw new Error(`rewind_conversation answered ${JSON.stringify(rewound).slice(0, 300)}`);
  }
}

/**
 * Stops every warm Claude Code process of this worker now (for tests and teardown), leased
 * or idle, each with its process group; their folders are removed. Warm processes also stop
 * after 20 s unused, and always when the worker exits.
 *
 * @example
 * ```ts
 * import { stopWarmClaudeCode } from "@jest-m3/harness-claude-code";
 * afterAll(() => stopWarmClaudeCode());
 * ```
 */
export function stopWarmClaudeCode(): Promise<void> {
  return pool.stopAll();
}

/** The process ids of this worker's warm Claude Code processes (for diagnosis and tests). */
export function warmClaudeCodePids(): number[] {
  return pool.all.flatMap((warm) =>
    warm.client.process.pid === undefined ? [] : [warm.client.process.pid],
  );
}

/** Every file in Claude Code's MCP logs under `homes` (so a warm session reads only its own). */
export function mcpLogFiles(homes: ClaudeHomes): Set<string> {
  const cache = join(homes.home, ".cache", "claude-cli-nodejs");
  const files = new Set<string>();
  try {
    for (const project of readdirSync(cache)) {
      for (const dir of readdirSync(join(cache, project))) {
        if (!dir.startsWith("mcp-logs-")) continue;
        for (const file of readdirSync(join(cache, project, dir))) {
          files.add(join(cache, project, dir, file));
        }
      }
    }
  } catch {
    // No logs yet.
  }
  return files;
}
