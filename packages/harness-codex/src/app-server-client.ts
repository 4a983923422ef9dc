import { JsonRpcClient, type ManagedProcess, type RequestOptions } from "@jest-m3/core/adapter-kit";
import { AppServerExited, AppServerTimeout, CodexRpcError } from "./errors.js";
import type { ClientMethod, ClientRequests, RpcErrorValue } from "./protocol.js";

/**
 * The kit's JSON-RPC client for `codex app-server` (JSON lines without the `"jsonrpc"`
 * field): its errors are {@link CodexRpcError}, {@link AppServerExited} (with the stderr
 * tail) and {@link AppServerTimeout}; the app-server's requests and notifications are routed
 * by the thread they name, so a shared app-server never hands one session's approval to
 * another. {@link AppServerClient.call} is `request` typed by the protocol.
 */
export class AppServerClient extends JsonRpcClient {
  constructor(process: ManagedProcess) {
    super(process, {
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
  }

  /** Sends a request of the protocol, typed; rejects with the errors above. */
  call<M extends ClientMethod>(
    method: M,
    params: ClientRequests[M]["params"],
    options?: RequestOptions,
  ): Promise<ClientRequests[M]["result"]> {
    return this.request(method, params, options);
  }

  /** The handshake: `initialize` with the adapter's identity, then `initialized`. */
  async initialize(options: RequestOptions): Promise<void> {
    const clientInfo = { name: "jest-m3", title: "jest-m3", version: "0.1.0" };
    await this.call("initialize", { clientInfo, capabilities: { experimentalApi: true } }, options);
    this.notify("initialized");
  }
}
