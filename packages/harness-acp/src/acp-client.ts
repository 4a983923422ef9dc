import {
  JsonRpcClient,
  within,
  type LineProblem,
  type ManagedProcess,
  type RequestOptions,
  type RpcMessage,
} from "@jest-m3/core/adapter-kit";
import type {
  AgentRequestMethod,
  AgentRequestParamsByMethod,
  AgentRequestResponsesByMethod,
} from "@agentclientprotocol/sdk" with { "resolution-mode": "import" };
import { AcpRpcError, AgentExited, AgentTimeout } from "./errors.js";
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from "./protocol.js";

export type { RequestOptions };

/** What the transport saw on the agent's stdout that was not an ACP message. */
export type StdoutProblem = LineProblem;

/** The longest line taken from an agent (a 10 MB tool result fits, a runaway stream does not). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/** What the client does with what the agent sends on its own. */
export interface AcpClientHandlers {
  /** Every `session/update`. */
  onUpdate(notification: SessionNotification): void;
  /** Answers `session/request_permission`. */
  onPermission(request: RequestPermissionRequest): RequestPermissionResponse;
  /** A request the adapter does not serve (fs, terminal, elicitation): it is refused. */
  onRefused?(method: string): void;
}

/** How the agent is stopped: closing stdin (OpenCode) or SIGTERM (Gemini CLI). */
export type StopSignal = "stdin" | "sigterm";

/** The ACP session a message is about (its params' `sessionId`). */
function sessionOf(params: unknown): string | undefined {
  const id = (params as { sessionId?: unknown } | null)?.sessionId;
  return typeof id === "string" ? id : undefined;
}

/** A permission request goes to the session's handlers (cancelled when none); the rest is refused. */
function answer(
  request: RpcMessage,
  handlers: AcpClientHandlers | undefined,
): RequestPermissionResponse {
  if (request.method === "session/request_permission") {
    if (!handlers) return { outcome: { outcome: "cancelled" } };
    return handlers.onPermission(request.params as RequestPermissionRequest);
  }
  handlers?.onRefused?.(request.method);
  throw Object.assign(new Error(`jest-m3 does not serve ${request.method}`), { code: -32601 });
}

/**
 * An ACP client over the stdio of one agent process: the adapter kit's line-delimited
 * JSON-RPC client with typed requests, the agent's `session/update` notifications and
 * permission requests routed to the session, every waiting request rejected with
 * {@link AgentExited} (carrying the stderr tail) when the process ends, and every stdout
 * line that is not an ACP message reported to `onProblem`.
 */
export class AcpClient extends JsonRpcClient {
  private ending: Promise<void> | undefined;
  /**
   * Resolves when the agent itself has exited. `process.exited` waits for its stdio to
   * close too, which the MCP servers it started may hold open (they inherit its stderr).
   */
  private readonly agentExited: Promise<void>;

  /**
   * @param name - The agent's name for messages (`Gemini CLI`, `OpenCode`, `my-agent`).
   * @param process - The agent process, already spawned by the kit.
   */
  constructor(
    readonly name: string,
    process: ManagedProcess,
  ) {
    super(process, {
      agent: name,
      maxLineLength: MAX_LINE_BYTES,
      exited: (what, exit, tail) => new AgentExited(name, what, exit, tail),
      timeout: (method, ms) => new AgentTimeout(name, method, ms),
      rpcError: (method, error) =>
        new AcpRpcError(name, method, error.code, error.message, error.data),
      // A shared agent's sessions each hear and answer only their own.
      scopeOf: sessionOf,
      scopeName: "session",
      unhandled: (request) => answer(request, undefined),
    });
    this.agentExited = new Promise<void>((resolve) => {
      process.child.once("exit", () => resolve());
      process.child.once("error", () => resolve());
    });
  }

  /** Waits until the agent is spawned (it rejects when it could not be). Call before any request. */
  async connect(): Promise<void> {
    await this.process.spawned;
  }

  /**
   * Sets who answers the agent's permission requests and receives its updates: for every
   * session, or, on an agent shared by several sessions, for the one ACP session
   * `sessionId` only (another session's updates and requests never reach its handlers; a
   * request of no known session is cancelled or refused). Returns a function that removes
   * them.
   */
  handle(handlers: AcpClientHandlers, sessionId?: string): () => void {
    const stops = [
      this.onNotification((note) => {
        if (note.method === "session/update") {
          handlers.onUpdate(note.params as SessionNotification);
        }
      }, sessionId),
      this.handleRequests((request) => answer(request, handlers), sessionId),
    ];
    return () => stops.forEach((stop) => stop());
  }

  /**
   * Sends an ACP request and resolves with its result.
   *
   * @throws {@link AcpRpcError} when the agent answers with an error; {@link AgentExited}
   * when the process ends first; {@link AgentTimeout}; the signal's reason when it aborts.
   */
  call<M extends AgentRequestMethod>(
    method: M,
    params: AgentRequestParamsByMethod[M],
    options: RequestOptions = {},
  ): Promise<AgentRequestResponsesByMethod[M]> {
    return this.request(method, params, options);
  }

  /**
   * Ends the agent: SIGTERM to the agent alone, or EOF on its stdin, as the agent needs
   * (so it stops its own MCP servers); waits up to `graceMs` for the agent to exit, then
   * stops what is left of its process group (SIGTERM, then SIGKILL). Idempotent.
   */
  end(stop: StopSignal, graceMs = 2000): Promise<void> {
    this.ending ??= (async () => {
      if (this.agent.exitDescription === undefined) {
        if (stop === "sigterm") {
          this.process.terminate();
        } else {
          this.process.child.stdin.end();
        }
        await within(this.agentExited, graceMs, () => undefined);
      }
      await this.process.stop(graceMs);
    })();
    return this.ending;
  }
}
