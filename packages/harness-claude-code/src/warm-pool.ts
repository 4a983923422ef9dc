// Warm Claude Code (the default; `warm: false` opts out): one `claude --print` process per
// Jest worker and key, serving one session after another. One process is one conversation at a time,
// so a process is leased to one session; a second session of the same key that opens
// meanwhile gets a process of its own. What is shared is only what the key says is equal:
// everything the process was started with — the executable, its arguments (model,
// allow-list rules), its environment (provider and credential values included) and every
// file written into its home (a copied login). Between sessions the process is reset (see
// endConversation): its MCP servers removed, its deny rules cleared, its conversation
// ended; a process that cannot be reset cleanly is stopped, never handed on.
import { join } from "node:path";
import {
  messageExchange,
  WarmAgents,
  type WarmAgentLease,
  type WarmStartSpec,
} from "@jest-m3/core/adapter-kit";
import type { ClaudeHomes } from "./home.js";
import type { StreamMessage } from "./protocol.js";
import { StreamJsonClient } from "./stream-json-client.js";

// One process is one conversation at a time: the kit's exclusive lease. An unused process
// stops after 20 s; a stopped one gets 1 s to exit once its stdin closed (the kit's defaults).
const pool = new WarmAgents({
  label: "claude (warm)",
  client: (child) => new StreamJsonClient(child),
});

/** How long a warm session's close gets to reset the process for the next session. */
const RESET_TIMEOUT_MS = 5000;

/** A session's hold on a warm process, with the process's homes (for Claude Code's MCP logs). */
export interface WarmLease extends WarmAgentLease<StreamJsonClient> {
  readonly homes: ClaudeHomes;
}

/**
 * An idle warm process of `spec`'s key (everything it is started with, and every file in
 * its homes: see the kit's `warmStartKey`), or a new one started for it; `spec.root` (a
 * fresh folder holding `home` and `claude-config`, as `createHomes` made them) becomes its
 * folder, or is removed when an idle process of the same key is reused. A process that
 * died is replaced. The process serves this session only until it is released.
 */
export async function acquireWarmClaude(spec: WarmStartSpec): Promise<WarmLease> {
  const lease = await pool.acquire(spec);
  const homes = { home: join(lease.root, "home"), configDir: join(lease.root, "claude-config") };
  return { ...lease, homes };
}

/**
 * Sends `/clear` and waits for its `result`: the uuid Claude Code's `conversation_reset`
 * names (where the new conversation starts). Throws when `/clear` fails or resets nothing.
 */
async function clearConversation(client: StreamJsonClient, timeoutMs: number): Promise<string> {
  let resetAt: string | undefined;
  const result = await messageExchange<StreamMessage, StreamMessage>({
    messages: (listener) => client.onStreamMessage(listener),
    agent: client.agent,
    send: () => {
      if (!client.sendUser("/clear")) throw new Error("Claude Code's stdin is closed");
    },
    take: (message) => {
      if (message.type === "conversation_reset") {
        const uuid = (message as { user_message_uuid?: unknown }).user_message_uuid;
        if (typeof uuid === "string") resetAt = uuid;
      }
      return message.type === "result" ? message : undefined;
    },
    timeoutMs,
    late: () => new Error(`/clear took longer than ${timeoutMs} ms`),
    exited: (exit) => new Error(`Claude Code exited (${exit})`),
  });
  if ((result as { is_error?: unknown }).is_error === true) {
    throw new Error(`/clear failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
  if (resetAt === undefined) throw new Error("/clear did not reset the conversation");
  return resetAt;
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
export async function endConversation(
  client: StreamJsonClient,
  timeoutMs = RESET_TIMEOUT_MS,
): Promise<void> {
  const wait = { timeoutMs };
  await client.control({ subtype: "mcp_set_servers", servers: {} }, wait);
  const left = await client.mcpStatus(wait);
  if (left.length > 0) {
    throw new Error(
      `MCP servers still configured: ${left.map((server) => server.name).join(", ")}`,
    );
  }
  await client.control(
    { subtype: "apply_flag_settings", settings: { permissions: { deny: [] } } },
    wait,
  );
  const resetAt = await clearConversation(client, timeoutMs);
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
  return pool.pids();
}
