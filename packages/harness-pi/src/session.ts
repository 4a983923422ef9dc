import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bridgeConfig,
  bridgeFailures,
  errorMessage,
  offeredTools,
  readBridgeStatus,
  startFailure,
  TurnSlot,
  type AgentNames,
  type BridgeStatus,
} from "@jest-m3/core/adapter-kit";
import {
  HarnessStartError,
  type AdapterTurn,
  type AdapterTurnRequest,
  type HarnessHealth,
  type HarnessLaunch,
  type HarnessSession,
} from "@jest-m3/core/harness";
import { BRIDGE_COMMAND } from "./bridge-config.js";
import { InvalidPiOptions } from "./errors.js";
import { piArgs } from "./config.js";
import { createPiHome, piEnvironment } from "./home.js";
import { resolvePiOptions, type ResolvedPiOptions } from "./options.js";
import type { PiState } from "./protocol.js";
import { credentialsCapability, HARNESS_NAME, launchFacts } from "./readiness.js";
import { PiRpcClient } from "./rpc-client.js";
import type { McpToolName } from "./reported-calls.js";
import { PiTurn } from "./turn.js";
import { leaveSession, warmPis, type WarmPiLease } from "./warm-pool.js";

/** The names the adapter kit's messages use for Pi. */
export const PI_NAMES: AgentNames = { agent: "Pi", process: "pi", stderr: "pi" };

/** The bridge extension, compiled next to this module. */
export const BRIDGE_EXTENSION = join(__dirname, "extension", "mcp-bridge.js");

/** How long `close()` waits for Pi to exit after its stdin closed, before signals. */
const CLOSE_GRACE_MS = 1500;

/** Pi's state at a session's start: a session id, no message, the provider's model. */
function checkState(
  launch: HarnessLaunch,
  state: PiState | undefined,
  client: PiRpcClient,
): string {
  if (typeof state?.sessionId !== "string" || state.sessionId === "" || state.messageCount) {
    throw new HarnessStartError(
      HARNESS_NAME,
      `Pi is not at a new conversation: get_state answered ${JSON.stringify(state)}`,
    );
  }
  if (
    launch.provider &&
    (state.model?.id !== launch.model || state.model.provider !== launch.provider.name)
  ) {
    throw new HarnessStartError(
      HARNESS_NAME,
      `Pi did not select the model ${launch.provider.name}/${launch.model} from its models.json (it has ${state.model ? `${state.model.provider}/${state.model.id}` : "none"})`,
      { stderrTail: client.agent.stderrTail() },
    );
  }
  return state.sessionId;
}

/**
 * Opens a Pi session: on a warm Pi of this worker whose bridge binds this session's servers
 * (see {@link openOnWarmPi}) unless the session needs a Pi of its own (`warm: false`,
 * `builtinTools`, a workspace), else on one `pi --mode rpc` process on a Node new enough
 * for it, in a fresh HOME and agent dir (the provider in `models.json`), with the bridge
 * extension connected to the captured MCP servers and offering only the allowed tools.
 * Returns once Pi answered `get_state` at a new conversation and every server connected.
 *
 * @throws {@link HarnessStartError} with Pi's words (and a server's name, error and stderr
 * when one failed to start) and Pi's stderr tail.
 * @throws {@link InvalidPiOptions} before anything starts for `warm: true` with a workspace.
 */
export async function openPiSession(launch: HarnessLaunch): Promise<PiSession> {
  const options = resolvePiOptions(launch.selection.options);
  const { start: command } = await launchFacts(launch.selection, launch.config);
  if (!command.found) throw new HarnessStartError(HARNESS_NAME, command.reason);
  const credentials = credentialsCapability(launch.provider, launch.credentials);
  if (credentials.status !== "ready") {
    throw new HarnessStartError(HARNESS_NAME, credentials.reason ?? "no credentials");
  }
  const args = [...command.prefix, ...piArgs(launch, options, BRIDGE_EXTENSION)];
  // Left out, `warm` adapts: a session with a workspace needs a Pi started in it.
  const warm = options.warm && !(options.warmByDefault && launch.workspaceKind !== undefined);
  if (warm && launch.workspaceKind !== undefined) {
    throw new InvalidPiOptions(
      "warm",
      `cannot serve a session with a workspace (${launch.workspaceKind}): a warm Pi works in a folder of its own, not in the session's workspace. Leave warm out of the selections of workspace sessions (they are then cold, the workspace Pi's working directory), or the workspace out of warm ones.`,
    );
  }
  if (warm) return openOnWarmPi(launch, options, command.command, args);
  const home = await createPiHome(await launch.tempDir("m3-pi-"), launch, options);
  const bridge = bridgeConfig(launch, home.statusFile, options);
  const child = launch.spawn({
    label: "pi",
    command: command.command,
    args,
    env: piEnvironment(launch.env, home, launch.provider, bridge),
    cwd: launch.workspace,
  });
  const client = new PiRpcClient(child);
  try {
    await child.spawned;
    const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
    const state = (await client.command("get_state", {}, wait)) as unknown as PiState | undefined;
    // Pi loads the extension before its session starts: the status is written by now.
    const status = await readBridgeStatus(home.statusFile);
    return ready(launch, client, checkState(launch, state, client), status, options);
  } catch (error) {
    const stderrTail = client.agent.stderrTail();
    await client.close(300);
    throw startFailure(HARNESS_NAME, error, {
      names: PI_NAMES,
      stderrTail,
      aborted: launch.signal.aborted,
    });
  }
}

/**
 * Opens a session on a warm Pi (the default, see `PiOptions.warm`): one started for an earlier
 * session of the same selection and left by it (see warm-pool.ts), or a new one. The
 * session binds its own servers through the bridge's command (the configuration on Pi's
 * stdin), then reads the bridge's status and Pi's new session id, as a cold start does.
 *
 * @throws {@link HarnessStartError} as {@link openPiSession}; the warm Pi is then stopped.
 */
async function openOnWarmPi(
  launch: HarnessLaunch,
  options: ResolvedPiOptions,
  command: string,
  args: readonly string[],
): Promise<PiSession> {
  // The pool owns the folder (it outlives this session), so it is not one of the kit's.
  const root = await mkdtemp(join(tmpdir(), "m3-pi-warm-"));
  let lease: WarmPiLease;
  try {
    const home = await createPiHome(root, launch, options);
    const env = piEnvironment(launch.env, home, launch.provider, undefined);
    const { startupTimeoutMs } = options;
    lease = await warmPis.acquire({ command, args, env, root, extra: ["pi"], startupTimeoutMs });
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw new HarnessStartError(HARNESS_NAME, `the warm Pi did not start: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const { client } = lease;
  launch.record({
    kind: "harness",
    detail: `${lease.started ? "started a warm" : "reused the warm"} Pi (pid ${client.agent.pid ?? "unknown"})`,
  });
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  const statusFile = join(lease.root, `bridge-status-${randomUUID()}.json`);
  try {
    const bridge = bridgeConfig(launch, statusFile, options);
    const message = `/${BRIDGE_COMMAND} ${JSON.stringify(bridge)}`;
    const bound = (await client.command("prompt", { message }, wait)) as
      { disposition?: unknown } | undefined;
    if (bound?.disposition !== "handled") {
      throw new HarnessStartError(
        HARNESS_NAME,
        `the warm Pi did not run the bridge's /${BRIDGE_COMMAND} command (prompt answered ${JSON.stringify(bound)})`,
      );
    }
    const status = await readBridgeStatus(statusFile, options.startupTimeoutMs, launch.signal);
    const state = (await client.command("get_state", {}, wait)) as unknown as PiState | undefined;
    return ready(launch, client, checkState(launch, state, client), status, options, lease);
  } catch (error) {
    await lease.release(false);
    // Another session's lines may be in a warm Pi's stderr: none in this error.
    throw startFailure(HARNESS_NAME, error, {
      names: PI_NAMES,
      stderrTail: "",
      aborted: launch.signal.aborted,
    });
  } finally {
    await rm(statusFile, { force: true });
  }
}

/**
 * Checks what the bridge reported once Pi answered (every server connected, else the error
 * names each that did not, with its words and stderr), records what it offers, and makes
 * the session.
 */
function ready(
  launch: HarnessLaunch,
  client: PiRpcClient,
  sessionId: string,
  status: BridgeStatus | undefined,
  options: ResolvedPiOptions,
  lease?: WarmPiLease,
): PiSession {
  const failure = bridgeFailures(launch.servers, status);
  if (failure !== undefined) {
    throw new HarnessStartError(HARNESS_NAME, failure, { stderrTail: client.agent.stderrTail() });
  }
  const names = offeredTools(status);
  const offered = names.size > 0 ? `: ${[...names.keys()].join(", ")}` : "";
  launch.record({
    kind: "harness",
    detail: `Pi ${sessionId}: the bridge offers ${names.size} MCP tool(s)${offered}`,
  });
  return new PiSession(client, launch, sessionId, names, options, lease);
}

/**
 * One Pi conversation in one long-lived `pi --mode rpc` process: every `send()` is a
 * `prompt`, the turn ends at `agent_settled`; an interrupt is Pi's `abort` (the process
 * and the conversation survive it).
 */
export class PiSession implements HarnessSession {
  private readonly slot: TurnSlot<PiTurn>;
  private readonly servers: readonly string[];
  private readonly detach: () => void;

  /** @internal Made by {@link openPiSession}. */
  constructor(
    private readonly client: PiRpcClient,
    private readonly launch: HarnessLaunch,
    /** Pi's session id (`get_state`), the same for every turn. */
    readonly id: string,
    private readonly names: ReadonlyMap<string, McpToolName>,
    private readonly options: ResolvedPiOptions,
    /** Set when Pi is a warm one, handed on to the next session at close. */
    private readonly lease?: WarmPiLease,
  ) {
    this.servers = launch.servers.map((server) => server.name);
    this.slot = new TurnSlot<PiTurn>({
      names: PI_NAMES,
      agent: client.agent,
      stderrTail: () => client.agent.stderrTail(),
      interrupt: () => client.command("abort", {}, { timeoutMs: 5000 }),
    });
    this.detach = client.onEvent((event) => this.slot.current?.accept(event));
  }

  /** Pi's process id (for diagnosis and fault tests). */
  get pid(): number | undefined {
    return this.client.agent.pid;
  }

  /**
   * Sends one prompt and resolves at `agent_settled`: `completed`, `failed` with the
   * provider's words (a failed model request), `interrupted` after an abort, or `failed`
   * with Pi's stderr tail when Pi dies.
   */
  send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    const turn: PiTurn = new PiTurn(this.servers, this.names, this.launch.toolPolicy, () =>
      this.slot.interruptRequested(turn),
    );
    return this.slot.run(request, turn, async () => {
      const data = (await this.client.command(
        "prompt",
        { message: request.text },
        {
          timeoutMs: this.options.startupTimeoutMs,
        },
      )) as { disposition?: unknown } | undefined;
      // "handled": Pi ran no model (a command it took itself); no agent_settled follows.
      if (data?.disposition === "handled") turn.finish("completed", null);
    });
  }

  /** Aborts the running turn (Pi's `abort`); the turn ends `interrupted`. */
  interrupt(): Promise<void> {
    return this.slot.interrupt();
  }

  /** Alive while Pi runs; otherwise how it ended and its last stderr lines. */
  health(): HarnessHealth {
    return this.slot.health();
  }

  /**
   * Ends the conversation: closes Pi's stdin (it stops the bridge's servers), then signals.
   * A warm Pi is left for the next session instead (`new_session`: a new conversation, this
   * session's servers closed), or stopped when a turn was still running or Pi did not
   * confirm it. Idempotent.
   */
  close(): Promise<void> {
    return this.slot.shutdown(async (midTurn) => {
      this.detach();
      if (!this.lease) return this.client.close(CLOSE_GRACE_MS);
      await this.lease.leave(
        midTurn,
        () => leaveSession(this.client, this.id, this.options.startupTimeoutMs),
        (error) =>
          this.launch.record({
            kind: "harness",
            detail: `stopped the warm Pi: it did not leave the session for the next one (${errorMessage(error)})`,
          }),
      );
    });
  }
}
