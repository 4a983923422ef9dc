// Warm agents (`options: { warm: true }`): one ACP agent process per worker process and
// key, serving each jest-m3 session as its own ACP session (`session/new` with that
// session's workspace and MCP servers). What is shared is only what the key says is equal:
// everything the process was started with — the executable, its arguments, its
// environment (credential values included) and every file the profile wrote into its home
// (Gemini CLI's policy file and settings, OpenCode's configuration with the provider and
// the permission map). Sessions that differ in any of it never share a process.
import {
  WarmAgents,
  type AgentProcess,
  type WarmAgentLease,
  type WarmStartSpec,
} from "@jest-m3/core/adapter-kit";
import type { HarnessLaunch } from "@jest-m3/core/harness";
import { AcpClient, type StopSignal } from "./acp-client.js";
import type { InitializeResponse } from "./protocol.js";
import { INITIALIZE_PARAMS } from "./readiness.js";

/** How long a warm agent gets to exit on its own when it is stopped. */
const STOP_GRACE_MS = 1000;
/** How long leaving a warm agent's session waits for `session/close`, and for its servers. */
const CLOSE_GRACE_MS = 2000;

/**
 * Everything one warm agent process is started with (`root`: the fresh home the profile
 * planned into, which the pool owns from here on); its key is all of it but `agent`,
 * `maxSessions` and `timeoutMs`.
 */
export interface WarmStart extends WarmStartSpec {
  /** The agent's name in messages, e.g. `Gemini CLI`. */
  readonly agent: string;
  /** The harness kind, e.g. `gemini`. */
  readonly harness: string;
  readonly stop: StopSignal;
  /** The profile's limit of sessions on one process at once (its `warmSessions`). */
  readonly maxSessions?: number;
  /** How long `initialize` may take. */
  readonly timeoutMs: number;
}

/** A warm agent: its ACP client, and its answer to `initialize` (capabilities, `session/close`). */
interface WarmAcp {
  readonly agent: AgentProcess;
  readonly client: AcpClient;
  initialize?: InitializeResponse;
}

/**
 * A session's hold on a warm agent (`client.client`, its `initialize` answer, the root of
 * its home, kept by the pool from its first session); `release(false)` (it stopped
 * answering) stops it.
 */
export type WarmLease = WarmAgentLease<WarmAcp>;

/**
 * One pool per harness kind (its processes' label names it, its profile its limit of
 * sessions per process); sessions of a key share a process.
 */
const pools = new Map<string, WarmAgents<WarmAcp, WarmStart>>();

function poolOf(spec: WarmStart): WarmAgents<WarmAcp, WarmStart> {
  let pool = pools.get(spec.harness);
  if (!pool) {
    pool = new WarmAgents({
      label: `${spec.agent} (${spec.harness}, warm)`,
      lease: "shared",
      ...(spec.maxSessions === undefined ? {} : { maxSessions: spec.maxSessions }),
      client: (child): WarmAcp => {
        const client = new AcpClient(spec.agent, child);
        return { agent: client.agent, client };
      },
      async ready(warm, start) {
        warm.initialize = await warm.client.call("initialize", INITIALIZE_PARAMS, {
          timeoutMs: start.timeoutMs,
        });
      },
      close: (warm) => warm.client.end(spec.stop, STOP_GRACE_MS),
    });
    pools.set(spec.harness, pool);
  }
  return pool;
}

/**
 * The warm agent for `spec`'s key, started (and initialized) on first use; `spec.root`
 * becomes its home, or is removed when a live process of the same key already runs. A
 * process that died is replaced. Concurrent sessions with the same key share it, each with
 * its own ACP session.
 */
export function acquireWarmAgent(spec: WarmStart): Promise<WarmLease> {
  return poolOf(spec).acquire({ ...spec, extra: [spec.harness, spec.stop] });
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
  await Promise.all([...pools.values()].map((pool) => pool.stopAll()));
}

/** Whether the agent advertised `session/close` in its `initialize` answer. */
function closesSessions(lease: WarmLease): boolean {
  const capabilities = lease.client.initialize?.agentCapabilities?.sessionCapabilities as
    { close?: unknown } | null | undefined;
  return capabilities?.close !== undefined && capabilities.close !== null;
}

/**
 * Leaves an ACP session of a warm agent so that nothing of it keeps running:
 * `session/close` where the agent offers it, then its MCP servers stopped (the agents keep
 * them either way), then the lease released; stopped instead when the session found the
 * agent no longer `answering`.
 */
export function leaveWarmSession(
  client: AcpClient,
  lease: WarmLease,
  sessionId: string | undefined,
  launch: HarnessLaunch,
  answering = true,
): Promise<void> {
  // Awaited: an agent that stopped answering is gone when the session's close returns.
  const end = async (): Promise<boolean> => {
    if (
      sessionId !== undefined &&
      closesSessions(lease) &&
      client.agent.exitDescription === undefined
    ) {
      await client
        .call("session/close", { sessionId }, { timeoutMs: CLOSE_GRACE_MS })
        .catch(() => undefined);
    }
    return answering;
  };
  return lease.leaveShared(launch.servers, end, CLOSE_GRACE_MS);
}
