import {
  AgentProcess,
  PendingRequests,
  type ManagedProcess,
  type RequestOptions,
} from "@jest-m3/core/adapter-kit";
import type {
  ClientConnection,
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
import { loadAcpSdk } from "./sdk.js";
import { stdioStream, type StdoutProblem } from "./stdio-stream.js";

export type { RequestOptions };

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

/** A JSON-RPC error as the SDK (in whatever realm it was loaded) throws it. */
function rpcError(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== "number" || typeof message !== "string") return undefined;
  return { code, message, data: (error as { data?: unknown }).data };
}

/** How long a closed connection waits for the agent's exit before it reports itself. */
const EXIT_WAIT_MS = 2000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * An ACP client over the stdio of one agent process, built on the official SDK's
 * `client()` app: typed requests with a deadline, the agent's `session/update`
 * notifications and permission requests routed to the session, and every waiting request
 * rejected with {@link AgentExited} (carrying the stderr tail) when the process ends.
 */
export class AcpClient {
  /** Lines on stdout that were not ACP messages (kept for diagnosis). */
  readonly problems: StdoutProblem[] = [];
  private connection: ClientConnection | undefined;
  /** The process's exit and stderr, as the adapter kit tracks them for every agent. */
  private readonly agentProcess: AgentProcess;
  /** The requests waiting for an answer: deadline, abort, rejected all when the agent exits. */
  private readonly pending = new PendingRequests<unknown>({
    timeout: (what, timeoutMs) => new AgentTimeout(this.agent, what, timeoutMs),
  });
  private requests = 0;
  private readonly problemListeners = new Set<(problem: StdoutProblem) => void>();
  private handlers: AcpClientHandlers | undefined;
  /** Handlers of the sessions of a shared (warm) agent, by ACP session id. */
  private readonly sessions = new Map<string, AcpClientHandlers>();
  private closing: Promise<void> | undefined;
  /**
   * Resolves when the agent itself has exited. `process.exited` waits for its stdio to
   * close too, which the MCP servers it started may hold open (they inherit its stderr).
   */
  private readonly agentExited: Promise<void>;

  /**
   * @param agent - The agent's name for messages (`Gemini CLI`, `OpenCode`, `my-agent`).
   * @param process - The agent process, already spawned by the kit.
   */
  constructor(
    readonly agent: string,
    readonly process: ManagedProcess,
  ) {
    this.agentProcess = new AgentProcess(process);
    this.agentProcess.onExit((exit) => {
      this.pending.rejectAll(
        (what) => new AgentExited(this.agent, `while waiting for ${what}`, exit, this.stderrTail()),
      );
      this.connection?.close();
    });
    this.agentExited = new Promise<void>((resolve) => {
      process.child.once("exit", () => resolve());
      process.child.once("error", () => resolve());
    });
  }

  /** Connects the SDK's client app to the agent's stdio. Call once, before any request. */
  async connect(): Promise<void> {
    const { client, methods } = await loadAcpSdk();
    const stream = stdioStream(this.process, (problem) => {
      this.problems.push(problem);
      for (const listener of [...this.problemListeners]) listener(problem);
    });
    const refuse = (method: string, params: unknown): never => {
      this.handlersOf(params)?.onRefused?.(method);
      throw Object.assign(new Error(`jest-m3 does not serve ${method}`), { code: -32601 });
    };
    this.connection = client({ name: "jest-m3" })
      .onRequest(methods.client.session.requestPermission, ({ params }) => {
        const handlers = this.handlersOf(params);
        if (!handlers) return { outcome: { outcome: "cancelled" } };
        return handlers.onPermission(params);
      })
      .onNotification(methods.client.session.update, ({ params }) => {
        this.handlersOf(params)?.onUpdate(params);
      })
      .onRequest("*", ({ method, params }) => refuse(method, params))
      .onNotification("*", () => undefined)
      .connect(stream);
  }

  /**
   * Sets who answers the agent's permission requests and receives its updates: for every
   * session, or, on an agent shared by several sessions, for the one ACP session
   * `sessionId` only (another session's updates and requests never reach its handlers; a
   * request of no known session is cancelled or refused). Returns a function that removes
   * them.
   */
  handle(handlers: AcpClientHandlers, sessionId?: string): () => void {
    if (sessionId === undefined) {
      this.handlers = handlers;
      return () => {
        if (this.handlers === handlers) this.handlers = undefined;
      };
    }
    this.sessions.set(sessionId, handlers);
    return () => {
      if (this.sessions.get(sessionId) === handlers) this.sessions.delete(sessionId);
    };
  }

  /** The handlers of the session a message is about (its `sessionId`), or the default ones. */
  private handlersOf(params: unknown): AcpClientHandlers | undefined {
    if (this.sessions.size === 0) return this.handlers;
    const id =
      typeof params === "object" && params !== null
        ? (params as { sessionId?: unknown }).sessionId
        : undefined;
    return typeof id === "string" ? this.sessions.get(id) : undefined;
  }

  /** How the process ended (`code 0`, `signal SIGKILL`, ...), or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.agentProcess.exitDescription;
  }

  /** The last lines of the agent's stderr, without terminal colors. */
  stderrTail(lines = 20): string {
    return this.agentProcess.stderrTail(lines);
  }

  /** Calls `listener` once the process has exited, with how it ended. */
  onExit(listener: (exit: string) => void): () => void {
    return this.agentProcess.onExit(listener);
  }

  /** Calls `listener` with every stdout line that was not an ACP message. */
  onProblem(listener: (problem: StdoutProblem) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  /**
   * Sends a request and resolves with its result.
   *
   * @throws {@link AcpRpcError} when the agent answers with an error; {@link AgentExited}
   * when the process ends first; {@link AgentTimeout}; the signal's reason when it aborts.
   */
  request<M extends AgentRequestMethod>(
    method: M,
    params: AgentRequestParamsByMethod[M],
    options: RequestOptions = {},
  ): Promise<AgentRequestResponsesByMethod[M]> {
    const connection = this.connection;
    if (!connection) return Promise.reject(new Error("AcpClient.connect() was not called"));
    const exit = this.exitDescription;
    if (exit !== undefined) {
      return Promise.reject(
        new AgentExited(this.agent, `before ${method} could be sent`, exit, this.stderrTail()),
      );
    }
    const id = ++this.requests;
    const answer = this.pending.add(id, method, options);
    connection.agent.request(method, params).then(
      (result) => this.pending.resolve(id, result),
      (error: unknown) => {
        const rpc = rpcError(error);
        if (rpc) {
          this.pending.reject(
            id,
            () => new AcpRpcError(this.agent, method, rpc.code, rpc.message, rpc.data),
          );
          return;
        }
        // The connection closes when stdout does, a moment before the process is reaped:
        // wait for the exit (which rejects every waiting request first), so the error says
        // how it ended.
        void Promise.race([this.process.exited, delay(EXIT_WAIT_MS)]).then(() =>
          this.pending.reject(id, () =>
            error instanceof Error ? error : new Error(String(error)),
          ),
        );
      },
    );
    return answer as Promise<AgentRequestResponsesByMethod[M]>;
  }

  /** Sends a notification (no answer); a closed connection drops it. */
  notify(method: "session/cancel", params: { sessionId: string }): void {
    this.connection?.agent.notify(method, params).catch(() => undefined);
  }

  /**
   * Ends the agent: SIGTERM to the agent alone, or EOF on its stdin, as the agent needs
   * (so it stops its own MCP servers); waits up to `graceMs` for the agent to exit, then
   * stops what is left of its process group (SIGTERM, then SIGKILL). Idempotent.
   */
  close(stop: StopSignal, graceMs = 2000): Promise<void> {
    this.closing ??= (async () => {
      if (this.exitDescription === undefined) {
        if (stop === "sigterm" && this.process.pid !== undefined) {
          try {
            process.kill(this.process.pid, "SIGTERM");
          } catch {
            // Already gone.
          }
        } else {
          this.process.child.stdin.end();
        }
        await Promise.race([this.agentExited, delay(graceMs)]);
      }
      this.connection?.close();
      await this.process.stop(graceMs);
    })();
    return this.closing;
  }
}
