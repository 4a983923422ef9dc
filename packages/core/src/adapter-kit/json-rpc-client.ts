/**
 * A JSON-RPC client over one agent process speaking JSON lines on stdio: requests with
 * their answers (deadline, abort), notifications to listeners, the agent's own requests to
 * a handler (a throw becomes an error reply), every waiting request rejected with the
 * agent's exit and stderr tail when it ends, and `close(grace)`.
 *
 * @example
 * ```ts
 * const client = new JsonRpcClient(launch.spawn({ label: "my-agent", command, args, env }), { agent: "my-agent" });
 * await client.request("initialize", { clientInfo: { name: "jest-m3" } }, { timeoutMs: 30_000 });
 * client.onNotification((note) => console.log(note.method));
 * ```
 */
import type { ManagedProcess } from "../processes/managed-process.js";
import { AgentExited, AgentProtocolError, AgentTimeout } from "./agent-errors.js";
import { AgentProcess } from "./agent-process.js";
import { isJsonObject, JsonLines, type JsonObject, type LineProblem } from "./json-lines.js";
import { PendingRequests, type RequestOptions } from "./pending-requests.js";

/** A JSON-RPC error object as the agent sent it. */
export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A notification or a request from the agent (`id` only on requests). */
export interface RpcMessage {
  readonly method: string;
  readonly params: unknown;
  readonly id?: string | number;
}

/** Answers a request the agent sent; a throw becomes a JSON-RPC error reply. */
export type RpcRequestHandler = (request: RpcMessage & { id: string | number }) => unknown;

/** What the client is to its agent: names, errors, and how requests are routed. */
export interface JsonRpcClientOptions {
  /** The process's name in messages, e.g. `my-agent serve`. */
  readonly agent: string;
  /** Whose stderr the exit error's section names (default `agent`). */
  readonly stderrWho?: string;
  /** Whether messages carry `"jsonrpc": "2.0"` (default true). */
  readonly jsonrpcField?: boolean;
  /** The longest stdout line read (see {@link JsonLines}). */
  readonly maxLineLength?: number;
  /**
   * Which handler answers an agent request, and which scoped listeners get a notification:
   * e.g. the thread its params name.
   */
  readonly scopeOf?: (params: unknown) => string | undefined;
  /** The word for a scope in refusals, e.g. `thread` (default `scope`). */
  readonly scopeName?: string;
  /**
   * Answers an agent request no handler takes (default: a -32601 error naming the method
   * and scope), e.g. a permission request of a session that is gone, cancelled.
   */
  readonly unhandled?: RpcRequestHandler;
  /** The error of a waiting request when the agent exits (default {@link AgentExited}). */
  exited?(what: string, exit: string, stderrTail: string): Error;
  /** The error of a request not answered in time (default {@link AgentTimeout}). */
  timeout?(method: string, timeoutMs: number): Error;
  /** The error of a request answered with an error (default {@link AgentProtocolError}). */
  rpcError?(method: string, error: RpcError): Error;
}

/** A JSON-RPC client over one agent's stdio. */
export class JsonRpcClient {
  /** The agent process: exit, stderr tail, close. */
  readonly agent: AgentProcess;
  private readonly lines: JsonLines;
  private readonly pending: PendingRequests<unknown>;
  private nextId = 1;
  private readonly listeners = new Set<{
    readonly listener: (notification: RpcMessage) => void;
    readonly scope: string | undefined;
  }>();
  private readonly handlers = new Map<string | undefined, RpcRequestHandler>();

  constructor(
    readonly process: ManagedProcess,
    private readonly options: JsonRpcClientOptions,
  ) {
    this.agent = new AgentProcess(process);
    this.pending = new PendingRequests({
      timeout: (method, ms) =>
        options.timeout?.(method, ms) ?? new AgentTimeout(options.agent, method, ms),
    });
    this.lines = new JsonLines(process, (message) => this.receive(message), options.maxLineLength);
    this.agent.onExit((exit) => {
      const tail = this.agent.stderrTail();
      this.pending.rejectAll((method) => this.exitError(`while waiting for ${method}`, exit, tail));
    });
  }

  /** Lines on stdout that were not protocol messages (kept for diagnosis). */
  get problems(): string[] {
    return this.lines.problems;
  }

  /** Calls `listener` with every stdout line that was not a JSON object or too long. */
  onProblem(listener: (problem: LineProblem) => void): () => void {
    return this.lines.onProblem(listener);
  }

  /**
   * Calls `listener` with every notification, or with `scope` only with those whose params
   * the `scopeOf` option maps to it (a session of a shared agent hears only its own).
   * Returns the function that stops it.
   */
  onNotification(listener: (notification: RpcMessage) => void, scope?: string): () => void {
    const entry = { listener, scope };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /**
   * Sets who answers the agent's requests: all of them, or with `scope` only those whose
   * params the `scopeOf` option maps to it (an agent shared by sessions never hands one
   * session's request to another). Returns the function that removes it.
   */
  handleRequests(handler: RpcRequestHandler, scope?: string): () => void {
    this.handlers.set(scope, handler);
    return () => {
      if (this.handlers.get(scope) === handler) this.handlers.delete(scope);
    };
  }

  /** Sends a request and resolves with its result; rejects per the options' errors. */
  request<R = unknown>(method: string, params?: unknown, options?: RequestOptions): Promise<R> {
    const exit = this.agent.exitDescription;
    if (exit !== undefined) {
      return Promise.reject(
        this.exitError(`before ${method} could be sent`, exit, this.agent.stderrTail()),
      );
    }
    const id = this.nextId++;
    const answer = this.pending.add(id, method, options) as Promise<R>;
    this.write(params === undefined ? { id, method } : { id, method, params });
    return answer;
  }

  /** Sends a notification (no answer). */
  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Ends the agent (see {@link AgentProcess.close}). Idempotent. */
  close(graceMs?: number): Promise<void> {
    return this.agent.close(graceMs);
  }

  private exitError(what: string, exit: string, tail: string): Error {
    const { options } = this;
    return (
      options.exited?.(what, exit, tail) ??
      new AgentExited(options.agent, what, exit, tail, options.stderrWho)
    );
  }

  private write(message: JsonObject): void {
    this.lines.write(
      this.options.jsonrpcField === false ? message : { jsonrpc: "2.0", ...message },
    );
  }

  private receive(message: JsonObject): void {
    const { id, method } = message;
    const hasId = typeof id === "number" || typeof id === "string";
    if (typeof method === "string" && hasId) {
      void this.answer({ id, method, params: message.params });
    } else if (typeof method === "string") {
      const notification: RpcMessage = { method, params: message.params };
      const scope = this.options.scopeOf?.(message.params);
      for (const { listener, scope: only } of [...this.listeners]) {
        if (only === undefined || only === scope) listener(notification);
      }
    } else if (hasId) {
      if (!isJsonObject(message.error)) {
        this.pending.resolve(id, message.result ?? null);
        return;
      }
      const error = message.error as unknown as RpcError;
      this.pending.reject(
        id,
        (method) =>
          this.options.rpcError?.(method, error) ??
          new AgentProtocolError(
            `${this.options.agent} answered ${method} with error ${error.code}: ${error.message}`,
            { method, rpcCode: error.code, data: error.data },
          ),
      );
    } else {
      this.lines.problems.push(JSON.stringify(message).slice(0, 500));
    }
  }

  private async answer(request: RpcMessage & { id: string | number }): Promise<void> {
    const scope = this.options.scopeOf?.(request.params);
    const handler =
      (scope !== undefined ? this.handlers.get(scope) : undefined) ??
      this.handlers.get(undefined) ??
      this.options.unhandled;
    if (!handler) {
      const where = scope ? ` for ${this.options.scopeName ?? "scope"} ${scope}` : "";
      const message = `jest-m3 does not handle ${request.method}${where}`;
      this.write({ id: request.id, error: { code: -32601, message } });
      return;
    }
    try {
      this.write({ id: request.id, result: await handler(request) });
    } catch (error) {
      // A handler's error may carry its JSON-RPC code (e.g. -32601 for a method it refuses).
      const message = error instanceof Error ? error.message : String(error);
      const own = (error as { code?: unknown } | null)?.code;
      const code = typeof own === "number" && Number.isInteger(own) ? own : -32603;
      this.write({ id: request.id, error: { code, message } });
    }
  }
}
