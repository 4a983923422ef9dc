import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type GetPromptResult,
  type Implementation,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ClientClosed,
  M3Error,
  OperationTimeout,
  ProtocolError,
  ServerStartError,
  TraceStillOpen,
  TransportError,
} from "../errors.js";
import { TraceRecorder } from "../evidence/recorder.js";
import type { Trace } from "../evidence/trace.js";
import type { KitContext } from "../kit/context.js";
import { childEnvironment, ManagedProcess } from "../processes/managed-process.js";
import type { ResolvedServer } from "../servers/spec.js";
import { ProcessTransport } from "./process-transport.js";
import { operationTag, RecordingTransport, type CloseCause } from "./recording-transport.js";

/** Options of {@link MCPTestKit.direct}. */
export interface DirectClientOptions {
  /** Default timeout of every request, in milliseconds (default 30 000). */
  readonly timeoutMs?: number;
  /** How the client introduces itself in `initialize`. */
  readonly clientInfo?: Implementation;
}

/** Per-call options. */
export interface CallOptions {
  /** Timeout of this request, in milliseconds; overrides the client's default. */
  readonly timeoutMs?: number;
}

/** What the server said about itself during `initialize`. */
export interface ServerIdentity {
  readonly serverInfo: Implementation | undefined;
  readonly capabilities: ServerCapabilities | undefined;
  readonly instructions: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A recorded MCP client for agent-free tests of a server: the SDK's `Client` over the SDK's
 * transports, with every message recorded into {@link DirectClient.trace}.
 *
 * The server is started (or connected to) on first use. Tool errors are values
 * (`isError: true`); transport and protocol failures throw {@link TransportError},
 * {@link ProtocolError} or {@link OperationTimeout}.
 *
 * @example
 * ```ts
 * await using kit = new MCPTestKit();
 * const client = kit.direct({ name: "shipping", command: process.execPath, args: ["server.mjs"] });
 * const result = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
 * expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });
 * ```
 */
export class DirectClient {
  /** The server's name, from its spec. */
  readonly server: string;
  private readonly recorder = new TraceRecorder();
  private readonly client: Client;
  private readonly timeoutMs: number;
  private readonly release: () => void;
  private connecting: Promise<ServerIdentity> | undefined;
  private process: ManagedProcess | undefined;
  private http: StreamableHTTPClientTransport | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  /** @internal Created by {@link MCPTestKit.direct}. */
  constructor(
    private readonly spec: ResolvedServer,
    private readonly kit: KitContext,
    options: DirectClientOptions = {},
  ) {
    this.server = spec.name;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.client = new Client(options.clientInfo ?? { name: "jest-m3", version: "0.1.0" });
    this.release = kit.own(this);
  }

  /** Everything recorded so far: live, grows as messages cross the wire. */
  get trace(): Trace {
    return this.recorder.snapshot();
  }

  /** The complete trace. Only after {@link DirectClient.close}; throws before. */
  get finalTrace(): Trace {
    if (!this.closed) throw new TraceStillOpen("DirectClient");
    return this.recorder.snapshot();
  }

  /** The process id of a stdio server once started; undefined for HTTP servers. */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Starts the server (if stdio) and runs the MCP handshake. Other methods call it for you. */
  initialize(): Promise<ServerIdentity> {
    this.assertUsable("initialize");
    this.connecting ??= this.connect();
    return this.connecting;
  }

  /** Every tool the server lists (all pages). */
  async listTools(options?: CallOptions): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request("tools/list", options, () =>
        this.client.listTools(cursor ? { cursor } : undefined, this.requestOptions(options)),
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /**
   * Calls a tool. A tool that fails returns a result with `isError: true` (a value, not an
   * exception); the recorded call then has status `tool_error`.
   */
  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options?: CallOptions,
  ): Promise<CallToolResult> {
    return this.request(`tools/call ${JSON.stringify(name)}`, options, async () => {
      const result = await this.client.callTool(
        { name, arguments: args },
        undefined,
        this.requestOptions(options),
      );
      return result as CallToolResult;
    });
  }

  /** Every resource the server lists (all pages). */
  async listResources(options?: CallOptions): Promise<Resource[]> {
    const resources: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request("resources/list", options, () =>
        this.client.listResources(cursor ? { cursor } : undefined, this.requestOptions(options)),
      );
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    return resources;
  }

  /** Reads one resource. */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.request(`resources/read ${JSON.stringify(uri)}`, options, () =>
      this.client.readResource({ uri }, this.requestOptions(options)),
    );
  }

  /** Every prompt the server lists (all pages). */
  async listPrompts(options?: CallOptions): Promise<Prompt[]> {
    const prompts: Prompt[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request("prompts/list", options, () =>
        this.client.listPrompts(cursor ? { cursor } : undefined, this.requestOptions(options)),
      );
      prompts.push(...page.prompts);
      cursor = page.nextCursor;
    } while (cursor);
    return prompts;
  }

  /** Gets one prompt, filled in with `args`. */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: CallOptions,
  ): Promise<GetPromptResult> {
    return this.request(`prompts/get ${JSON.stringify(name)}`, options, () =>
      this.client.getPrompt({ name, arguments: args }, this.requestOptions(options)),
    );
  }

  /** Sends `ping`; resolves when the server answers. */
  async ping(options?: CallOptions): Promise<void> {
    await this.request("ping", options, () => this.client.ping(this.requestOptions(options)));
  }

  /** Closes the connection and stops the server process. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Same as {@link DirectClient.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private requestOptions(options: CallOptions | undefined): { timeout: number } {
    return { timeout: options?.timeoutMs ?? this.timeoutMs };
  }

  private assertUsable(what: string): void {
    this.kit.assertOpen(`DirectClient.${what}()`);
    if (this.closing) throw new ClientClosed(this.server, `client.${what}()`);
  }

  private async request<T>(
    operation: string,
    options: CallOptions | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    await this.initialize();
    const tag = {};
    try {
      return await operationTag.run(tag, run);
    } catch (error) {
      throw this.translate(error, operation, options?.timeoutMs ?? this.timeoutMs, tag);
    }
  }

  private translate(error: unknown, operation: string, timeoutMs: number, tag: object): Error {
    if (error instanceof M3Error) return error;
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        this.recorder.settleTagged(tag, "timed_out", `no response within ${timeoutMs} ms`);
        return new OperationTimeout(this.server, operation, timeoutMs);
      }
      if (error.code === ErrorCode.ConnectionClosed) {
        return new TransportError(this.server, `${operation} failed: ${this.closeCause().reason}`, {
          stderrTail: this.process?.stderrTail(),
          cause: error,
        });
      }
      const message = error.message.replace(/^MCP error -?\d+: /, "");
      return new ProtocolError(
        this.server,
        `${operation} failed with JSON-RPC error ${error.code}: ${message}`,
        {
          code: error.code,
          data: error.data,
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new TransportError(this.server, `${operation} failed: ${message}`, {
      stderrTail: this.process?.stderrTail(),
      cause: error,
    });
  }

  private closeCause(): CloseCause {
    if (this.closing) {
      return {
        reason: "the test closed the connection before a response arrived",
        status: "incomplete",
      };
    }
    const exit = this.process?.exitInfo;
    if (exit) {
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      return { reason: `the server process exited (${how})`, status: "transport_error" };
    }
    return { reason: "the connection closed", status: "transport_error" };
  }

  private async connect(): Promise<ServerIdentity> {
    const connection = this.kit.connectionId(this.server);
    const where = { server: this.server, connection };
    let inner: Transport;
    if (this.spec.kind === "stdio") {
      const spec = this.spec;
      const process = new ManagedProcess({
        label: spec.name,
        command: spec.command,
        args: spec.args,
        env: childEnvironment(spec.env),
        cwd: spec.cwd,
      });
      this.process = process;
      this.kit.trackProcess(process);
      try {
        await process.spawned;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new ServerStartError(
          spec.name,
          code === "ENOENT"
            ? `command ${JSON.stringify(spec.command)} was not found (ENOENT). Check the spelling, or give an absolute path; PATH is ${JSON.stringify(process.launch.env.PATH ?? "")}.`
            : `command ${JSON.stringify(spec.command)} could not be started: ${(error as Error).message}`,
          { cause: error },
        );
      }
      void process.exited.then((exit) =>
        this.recorder.event(
          "process_exit",
          `exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}` +
            (this.closing ? " after close" : `; stderr tail:\n${process.stderrTail()}`),
          where,
        ),
      );
      const stdio = new ProcessTransport(process, spec.name, this.kit.killGraceMs);
      stdio.onmalformed = (raw, problem) =>
        this.recorder.recordMalformed("from_server", raw, problem, where);
      inner = stdio;
    } else {
      this.http = new StreamableHTTPClientTransport(this.spec.url, {
        requestInit: { headers: { ...this.spec.headers } },
      });
      inner = this.http;
    }
    const transport = new RecordingTransport(inner, this.recorder, this.server, connection, () =>
      this.closeCause(),
    );
    this.recorder.event(
      "connected",
      this.spec.kind === "stdio" ? `pid ${this.process?.pid}` : String(this.spec.url),
      where,
    );
    try {
      await this.client.connect(transport, { timeout: this.timeoutMs });
    } catch (error) {
      throw await this.startFailure(error);
    }
    return {
      serverInfo: this.client.getServerVersion(),
      capabilities: this.client.getServerCapabilities(),
      instructions: this.client.getInstructions(),
    };
  }

  private async startFailure(error: unknown): Promise<Error> {
    const process = this.process;
    if (process) {
      // Give a dying server a moment, so its exit code and last stderr lines are known.
      await Promise.race([
        process.exited,
        new Promise((resolve) => setTimeout(resolve, 500).unref()),
      ]);
      const exit = process.exitInfo;
      await process.stop(this.kit.killGraceMs);
      const message = error instanceof Error ? error.message : String(error);
      return new ServerStartError(
        this.server,
        exit
          ? `the process exited during the MCP handshake (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}).`
          : `the MCP handshake failed: ${message}`,
        {
          stderrTail: process.stderrTail(),
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new ServerStartError(
      this.server,
      `could not connect to ${String(this.spec.kind === "http" ? this.spec.url : "")}: ${message}`,
      {
        cause: error,
      },
    );
  }

  private async shutdown(): Promise<void> {
    try {
      if (this.connecting) {
        await this.connecting.catch(() => undefined);
        if (this.http) {
          // Ends the server-side session; bounded, so a dead server cannot hold up close().
          await Promise.race([
            this.http.terminateSession().catch(() => undefined),
            new Promise((resolve) => setTimeout(resolve, 1000).unref()),
          ]);
        }
        await this.client.close().catch(() => undefined);
      }
      await this.process?.stop(this.kit.killGraceMs);
    } finally {
      this.closed = true;
      this.release();
    }
  }
}
