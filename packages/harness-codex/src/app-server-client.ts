import {
  JsonRpcClient,
  type AgentProcess,
  type ManagedProcess,
  type RequestOptions,
} from "@jest-m3/core/adapter-kit";
import { AppServerExited, AppServerTimeout, CodexRpcError } from "./errors.js";
import type {
  ClientMethod,
  ClientRequests,
  Json,
  RpcErrorValue,
  ServerNotification,
  ServerRequest,
} from "./protocol.js";

/** Answers a request the app-server sent; a throw becomes a JSON-RPC error reply. */
export type ServerRequestHandler = (request: ServerRequest) => Promise<Json> | Json;

/**
 * The kit's JSON-RPC client, typed for `codex app-server` (JSON lines without the
 * `"jsonrpc"` field): its errors are {@link CodexRpcError}, {@link AppServerExited} (with the
 * stderr tail) and {@link AppServerTimeout}; the app-server's requests are routed by the
 * thread they name, so a shared app-server never hands one session's approval to another.
 */
export class AppServerClient {
  private readonly rpc: JsonRpcClient;
  /** The app-server process: exit, stderr tail, close. */
  readonly agent: AgentProcess;

  constructor(readonly process: ManagedProcess) {
    this.rpc = new JsonRpcClient(process, {
      agent: "codex app-server",
      stderrWho: "codex",
      jsonrpcField: false,
      scopeName: "thread",
      scopeOf: (params) => {
        const thread = (params as { threadId?: unknown } | null)?.threadId;
        return typeof thread === "string" ? thread : undefined;
      },
      exited: (what, exit, tail) => new AppServerExited(what, exit, tail),
      timeout: (method, ms) => new AppServerTimeout(method, ms),
      rpcError: (method, error) => new CodexRpcError(method, error as RpcErrorValue),
    });
    this.agent = this.rpc.agent;
  }

  /** Sends a typed request; rejects with the errors above. */
  request<M extends ClientMethod>(
    method: M,
    params: ClientRequests[M]["params"],
    options?: RequestOptions,
  ): Promise<ClientRequests[M]["result"]> {
    return this.rpc.request(method, params, options);
  }

  /** The handshake: `initialize` with the adapter's identity, then `initialized`. */
  async initialize(options: RequestOptions): Promise<void> {
    const clientInfo = { name: "jest-m3", title: "jest-m3", version: "0.1.0" };
    await this.request(
      "initialize",
      { clientInfo, capabilities: { experimentalApi: true } },
      options,
    );
    this.notify("initialized");
  }

  /** Sends a notification (no answer). */
  notify(method: string, params?: Json): void {
    this.rpc.notify(method, params);
  }

  /**
   * Calls `listener` with every notification, or those of thread `threadId` only; returns
   * the function that stops it.
   */
  onNotification(
    listener: (notification: ServerNotification) => void,
    threadId?: string,
  ): () => void {
    return this.rpc.onNotification(
      (notification) => listener(notification as ServerNotification),
      threadId,
    );
  }

  /** Sets who answers the app-server's requests (for `threadId` only, when given). */
  handleServerRequests(handler: ServerRequestHandler, threadId?: string): () => void {
    return this.rpc.handleRequests(
      (request) => handler(request as unknown as ServerRequest),
      threadId,
    );
  }

  /** Ends the app-server: stdin closed, a grace period, then its process group. Idempotent. */
  close(graceMs?: number): Promise<void> {
    return this.rpc.close(graceMs);
  }
}
