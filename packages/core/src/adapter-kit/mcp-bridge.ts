/**
 * An MCP bridge inside the agent, for an agent with no MCP client the adapter can use: the
 * adapter hands a bridge (an extension the agent loads) the captured servers and the
 * allow-list as a {@link BridgeConfig}; the bridge connects to exactly those servers (the
 * wire capture's relays and proxies, so the capture sees every message), offers the model
 * each allowed tool under the name {@link assignToolNames} gives it and no other, and writes
 * a {@link BridgeStatus} file: which servers connected and which tools it offered, names
 * only. This module is the adapter's side and the names both sides share; the bridge's side
 * is {@link connectBridge}.
 *
 * @example
 * ```ts
 * const config = bridgeConfig(launch, join(home, "bridge-status.json"), { toolTimeoutMs: 300_000, startupTimeoutMs: 30_000 });
 * // ... start the agent with its bridge and `config` ...
 * const status = await readBridgeStatus(config.statusFile);
 * const failure = bridgeFailures(launch.servers, status);
 * if (failure) throw new HarnessStartError("my-agent", failure);
 * ```
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { HarnessLaunch } from "../harness/contract.js";
import type { CapturedHttpServer, CapturedStdioServer } from "../wire/captured-server.js";
import type { ToolIdentity } from "./tool-names.js";

/** One server for the bridge: exactly the captured command or URL (the wire capture's), as data. */
export type BridgeServer = Omit<CapturedStdioServer, "inWorkspace"> | CapturedHttpServer;

/** The bridge's configuration. */
export interface BridgeConfig {
  readonly servers: readonly BridgeServer[];
  /** Per server, the tools it may offer; `null` for all, a missing server for none. */
  readonly allow: Readonly<Record<string, readonly string[] | null>>;
  /** Where the bridge writes its {@link BridgeStatus}. */
  readonly statusFile: string;
  /** How long one MCP call may take, in ms. */
  readonly toolTimeoutMs: number;
  /** How long one server may take to connect and list its tools, in ms. */
  readonly startupTimeoutMs: number;
}

/** One server as the bridge found it. */
export type BridgeServerStatus =
  | {
      readonly status: "connected";
      /** Every tool the server listed. */
      readonly tools: readonly string[];
      /** The tools offered to the model: model-facing name → MCP tool name. */
      readonly offered: Readonly<Record<string, string>>;
    }
  | {
      readonly status: "failed";
      readonly error: string;
      /** The last lines the server wrote to stderr (stdio servers). */
      readonly stderr: string;
    };

/** The status file: written once, after every server connected or failed. */
export interface BridgeStatus {
  readonly servers: Readonly<Record<string, BridgeServerStatus>>;
}

/**
 * The bridge's configuration for a launch: its captured servers as they are, the
 * allow-list per server, where to write the status, and the timeouts.
 */
export function bridgeConfig(
  launch: Pick<HarnessLaunch, "servers" | "toolPolicy">,
  statusFile: string,
  timeouts: { readonly toolTimeoutMs: number; readonly startupTimeoutMs: number },
): BridgeConfig {
  const allow: Record<string, readonly string[] | null> = {};
  for (const server of launch.servers) {
    if (!launch.toolPolicy.has(server.name)) continue;
    const tools = launch.toolPolicy.get(server.name);
    allow[server.name] = tools === undefined ? null : [...tools];
  }
  const servers = launch.servers.map((server): BridgeServer =>
    server.kind === "http"
      ? { kind: "http", name: server.name, url: server.url, headers: { ...server.headers } }
      : {
          kind: "stdio",
          name: server.name,
          command: server.command,
          args: [...server.args],
          env: { ...server.env },
          cwd: server.cwd,
        },
  );
  const { toolTimeoutMs, startupTimeoutMs } = timeouts;
  return { servers, allow, statusFile, toolTimeoutMs, startupTimeoutMs };
}

/**
 * The bridge's status file, or undefined while there is none; with `waitMs`, read again
 * every 20 ms until it appears, the time is up or `signal` aborts (a bridge that binds
 * after the agent answered).
 */
export async function readBridgeStatus(
  file: string,
  waitMs = 0,
  signal?: AbortSignal,
): Promise<BridgeStatus | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return JSON.parse(await readFile(file, "utf8")) as BridgeStatus;
    } catch {
      if (Date.now() >= deadline || signal?.aborted) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Why a session cannot start on what the bridge reported, or undefined when every one of
 * `servers` connected: no status at all, or each server that failed with its error and
 * stderr, or that the bridge did not start.
 */
export function bridgeFailures(
  servers: readonly { readonly name: string }[],
  status: BridgeStatus | undefined,
): string | undefined {
  if (servers.length === 0) return undefined;
  if (status === undefined) {
    return "the jest-m3 MCP bridge extension did not report its servers (the agent did not load it, or it failed)";
  }
  const failures = servers.flatMap(({ name }) => {
    const entry = status.servers[name];
    if (entry?.status === "connected") return [];
    if (entry === undefined) return [`MCP server "${name}" was not started by the bridge`];
    const stderr = entry.stderr ? `\n--- ${name} stderr ---\n${entry.stderr}` : "";
    return [`MCP server "${name}" failed to start: ${entry.error}${stderr}`];
  });
  return failures.length > 0 ? failures.join("\n") : undefined;
}

/** The tools the bridge offered (from its status): model-facing name → server and tool. */
export function offeredTools(status: BridgeStatus | undefined): Map<string, ToolIdentity> {
  const names = new Map<string, ToolIdentity>();
  for (const [server, entry] of Object.entries(status?.servers ?? {})) {
    if (entry.status !== "connected") continue;
    for (const [name, tool] of Object.entries(entry.offered)) names.set(name, { server, tool });
  }
  return names;
}

/** The longest tool name the model providers accept (`^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME = 64;

/** Every character a provider refuses in a tool name becomes `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The plain name of a bridged MCP tool: `mcp__<server>__<tool>`. */
export function plainToolName(server: string, tool: string): string {
  return `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
}

/**
 * The name of a tool whose plain name is too long or collides with another's:
 * `mcp_<server[:20]>_<tool[:20]>_<12 hex of sha256(server NUL tool)>`, at most 57 characters.
 */
export function hashedToolName(server: string, tool: string): string {
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 12);
  return `mcp_${sanitizeName(server).slice(0, 20)}_${sanitizeName(tool).slice(0, 20)}_${hash}`;
}

/**
 * The model-facing name of each MCP tool: the plain name, unless it is longer than
 * {@link MAX_TOOL_NAME} or another tool's plain name is the same (`a.b` and `a_b` both
 * sanitize to `a_b`); those get {@link hashedToolName}. Returns name → server and tool.
 */
export function assignToolNames(tools: readonly ToolIdentity[]): Map<string, ToolIdentity> {
  const plainCount = new Map<string, number>();
  for (const { server, tool } of tools) {
    const plain = plainToolName(server, tool);
    plainCount.set(plain, (plainCount.get(plain) ?? 0) + 1);
  }
  const names = new Map<string, ToolIdentity>();
  for (const { server, tool } of tools) {
    const plain = plainToolName(server, tool);
    const unique = plainCount.get(plain) === 1 && plain.length <= MAX_TOOL_NAME;
    names.set(unique ? plain : hashedToolName(server, tool), { server, tool });
  }
  return names;
}
