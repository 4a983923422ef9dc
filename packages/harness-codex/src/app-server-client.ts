import { createInterface } from "node:readline";
import { describeExit, type ExitInfo, type ManagedProcess } from "@jest-m3/core/harness";
import { AppServerExited, AppServerTimeout, CodexRpcError } from "./errors.js";
import type {
  ClientMethod,
  ClientRequests,
  Json,
  RequestId,
  RpcErrorValue,
  ServerNotification,
  ServerRequest,
} from "./protocol.js";

/** Answers a request the app-server sent; a throw becomes a JSON-RPC error reply. */
export type ServerRequestHandler = (request: ServerRequest) => Promise<Json> | Json;

/** Options of {@link AppServerClient.request}. */
export interface RequestOptions {
  /** Reject with {@link AppServerTimeout} when there is no answer in time. */
  readonly timeoutMs?: number;
  /** Reject with the signal's reason when it aborts (the request is not withdrawn). */
  readonly signal?: AbortSignal;
}

interface Pending {
  readonly method: string;
  resolve(result: Json): void;
  reject(error: unknown): void;
}

// Codex's tracing output is colored even into a pipe.
// eslint-disable-next-line no-control-regex -- the pattern is exactly the ANSI escape
const ANSI_COLOR = /\u001b\[[0-9;]*m/g;

function exitText(exit: ExitInfo, spawnError: Error | undefined): string {
  if (spawnError) return `could not be started: ${spawnError.message}`;
  return describeExit(exit);
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A JSON-RPC client over the stdio of one `codex app-server` (JSON lines, no `"jsonrpc"`
 * field): requests with their answers, notifications, and requests from the server (which
 * the registered handler answers). When the process exits, every waiting request is
 * rejected with {@link AppServerExited} carrying the stderr tail.
 */
export class AppServerClient {
  /** Lines on stdout that were not protocol messages (kept for diagnosis). */
  readonly problems: string[] = [];
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly notificationListeners = new Set<(notification: ServerNotification) => void>();
  private readonly exitListeners = new Set<(exit: string) => void>();
  /** Who answers requests, by the thread they name (undefined: any thread). */
  private readonly requestHandlers = new Map<string | undefined, ServerRequestHandler>();
  private spawnError: Error | undefined;
  private exit: string | undefined;
  private closing: Promise<void> | undefined;

  constructor(readonly process: ManagedProcess) {
    process.spawned.catch((error: unknown) => {
      this.spawnError = error instanceof Error ? error : new Error(String(error));
    });
    const lines = createInterface({ input: process.child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => this.receive(line));
    void process.exited.then((info) => this.exited(exitText(info, this.spawnError)));
  }

  /** How the process ended (`code 0`, `signal SIGKILL`, ...), or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.exit;
  }

  /** The last lines of the app-server's stderr, without terminal colors. */
  stderrTail(lines = 20): string {
    return this.process.stderrTail(lines).replace(ANSI_COLOR, "");
  }

  /** Calls `listener` with every notification; returns the function that stops it. */
  onNotification(listener: (notification: ServerNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Calls `listener` once the process has exited, with how it ended. */
  onExit(listener: (exit: string) => void): () => void {
    if (this.exit !== undefined) {
      listener(this.exit);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /**
   * Sets who answers the app-server's requests (approvals, questions). With `threadId`, only
   * requests naming that thread reach `handler` (an app-server shared by several sessions
   * never hands one session's approval to another); returns the function that removes it.
   */
  handleServerRequests(handler: ServerRequestHandler, threadId?: string): () => void {
    this.requestHandlers.set(threadId, handler);
    return () => {
      if (this.requestHandlers.get(threadId) === handler) this.requestHandlers.delete(threadId);
    };
  }

  /**
   * Sends a request and resolves with its result.
   *
   * @throws {@link CodexRpcError} when Codex answers with an error;
   * {@link AppServerExited} when the process ends first; {@link AppServerTimeout}.
   */
  request<M extends ClientMethod>(
    method: M,
    params: ClientRequests[M]["params"],
    options: RequestOptions = {},
  ): Promise<ClientRequests[M]["result"]> {
    if (this.exit !== undefined) {
      return Promise.reject(
        new AppServerExited(`before ${method} could be sent`, this.exit, this.stderrTail()),
      );
    }
    const id = this.nextId++;
    return new Promise<ClientRequests[M]["result"]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const { signal, timeoutMs } = options;
      const cleanup = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason ?? new Error(`${method} was aborted`));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new AppServerTimeout(method, timeoutMs));
        }, timeoutMs);
      }
      this.pending.set(id, {
        method,
        resolve: (result) => {
          cleanup();
          resolve(result as unknown as ClientRequests[M]["result"]);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      this.write({ id, method, params: params as unknown as Json });
    });
  }

  /** Sends a notification (no answer). */
  notify(method: string, params?: Json): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /**
   * Ends the app-server: closes its stdin (Codex exits and reaps its MCP servers), waits up
   * to `graceMs`, then stops the process group (SIGTERM, then SIGKILL). Idempotent.
   */
  close(graceMs = 2000): Promise<void> {
    this.closing ??= (async () => {
      if (this.exit === undefined) {
        this.process.child.stdin.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          this.process.exited,
          new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      await this.process.stop(graceMs);
    })();
    return this.closing;
  }

  private write(message: Record<string, Json>): void {
    const stdin = this.process.child.stdin;
    if (stdin.destroyed || stdin.writableEnded) return;
    stdin.write(JSON.stringify(message) + "\n");
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.problems.push(line.slice(0, 500));
      return;
    }
    if (!isObject(message)) {
      this.problems.push(line.slice(0, 500));
      return;
    }
    const { id, method } = message;
    const hasId = typeof id === "number" || typeof id === "string";
    if (typeof method === "string" && hasId) {
      void this.answer({ id, method, params: message.params });
    } else if (typeof method === "string") {
      const notification: ServerNotification = { method, params: message.params };
      for (const listener of [...this.notificationListeners]) listener(notification);
    } else if (hasId) {
      const pending = this.pending.get(id);
      if (!pending) return;
      if (isObject(message.error)) {
        const error = message.error as unknown as RpcErrorValue;
        pending.reject(new CodexRpcError(pending.method, error));
      } else {
        pending.resolve(message.result ?? null);
      }
    } else {
      this.problems.push(line.slice(0, 500));
    }
  }

  private async answer(request: ServerRequest): Promise<void> {
    const params = request.params;
    const threadId =
      isObject(params) && typeof params.threadId === "string" ? params.threadId : undefined;
    const handler =
      (threadId !== undefined ? this.requestHandlers.get(threadId) : undefined) ??
      this.requestHandlers.get(undefined);
    if (!handler) {
      this.write({
        id: request.id,
        error: {
          code: -32601,
          message: `jest-m3 does not handle ${request.method}${threadId ? ` for thread ${threadId}` : ""}`,
        },
      });
      return;
    }
    try {
      const result = await handler(request);
      this.write({ id: request.id, result });
    } catch (error) {
      this.write({
        id: request.id,
        error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
      });
    }
  }

  private exited(description: string): void {
    this.exit = description;
    const tail = this.stderrTail();
    for (const pending of [...this.pending.values()]) {
      pending.reject(new AppServerExited(`while waiting for ${pending.method}`, description, tail));
    }
    this.pending.clear();
    for (const listener of [...this.exitListeners]) listener(description);
    this.exitListeners.clear();
  }
}
