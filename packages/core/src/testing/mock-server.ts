import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ElicitResultSchema,
  ListResourcesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type GetPromptResult,
  type LoggingLevel,
  type Root,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { InvalidArgument } from "../errors.js";
import type { HttpServer, StdioServer } from "../servers/spec.js";

/** What a mock tool's handler can do while it runs: ask the client things, log, report progress. */
export interface MockToolContext {
  /** Asks the client for input (`elicitation/create`), form or URL mode. */
  elicit(params: ElicitRequest["params"]): Promise<ElicitResult>;
  /** Asks the client's model (`sampling/createMessage`). */
  sample(params: CreateMessageRequest["params"]): Promise<CreateMessageResult>;
  /** Asks the client for its roots (`roots/list`). */
  listRoots(): Promise<Root[]>;
  /** Sends a log message (`notifications/message`), if the client's level lets it through. */
  log(level: LoggingLevel, data: unknown): Promise<void>;
  /** Reports progress on this call, when the client asked for it (a progress token). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Aborted when the client cancels the call. */
  readonly signal: AbortSignal;
  /** The HTTP request's headers (HTTP only; `{}` over stdio). */
  readonly headers: Readonly<Record<string, string>>;
}

/** A mock tool's answer: a full `CallToolResult`, or text (a single text block). */
export type MockToolResult = CallToolResult | string;

/** One tool of a mock server: its definition and the handler that answers calls. */
export interface MockTool {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments (default: any object). */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /**
   * Answers a call. A thrown error becomes a tool error (`isError: true`) with its message;
   * a thrown `McpError` becomes a JSON-RPC error.
   */
  readonly handler: (
    args: Record<string, unknown>,
    context: MockToolContext,
  ) => MockToolResult | Promise<MockToolResult>;
}

/** One argument a mock prompt takes. */
export interface MockPromptArgument {
  readonly name: string;
  readonly description?: string;
  /** A `prompts/get` without it is refused with a JSON-RPC error naming it. */
  readonly required?: boolean;
}

/**
 * One prompt of a mock server: its definition and the handler that renders it. The
 * handler returns text (one user message) or a full `GetPromptResult`; a thrown error
 * becomes a JSON-RPC error with its message.
 *
 * @example
 * ```ts
 * const greet: MockPrompt = { name: "greet", arguments: [{ name: "who", required: true }], handler: ({ who }) => `Say hello to ${who}.` };
 * ```
 */
export interface MockPrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments?: readonly MockPromptArgument[];
  readonly handler: (
    args: Readonly<Record<string, string>>,
  ) => string | GetPromptResult | Promise<string | GetPromptResult>;
}

/** One `prompts/get` a mock server answered. */
export interface MockPromptGet {
  readonly prompt: string;
  readonly arguments: Readonly<Record<string, string>>;
  /** How the request was reached: `stdio` or `http`. */
  readonly transport: "stdio" | "http";
  /** The error message when the prompt was refused or its handler threw. */
  readonly error?: string;
}

/** A text resource of a mock server. */
export interface MockResource {
  readonly uri: string;
  readonly name: string;
  readonly mimeType?: string;
  readonly text: string;
}

/** Options of {@link mockServer}. */
export interface MockServerOptions {
  /** The name in server specs (and in `serverInfo`). */
  readonly name: string;
  readonly version?: string;
  /** Sent in the `initialize` result. */
  readonly instructions?: string;
  readonly tools?: readonly MockTool[];
  readonly resources?: readonly MockResource[];
  /** Prompts, listed by `prompts/list` and rendered by `prompts/get`. */
  readonly prompts?: readonly MockPrompt[];
  /** Splits `tools/list` into pages of this many tools (default: one page). */
  readonly pageSize?: number;
  /** HTTP only: requests without exactly these headers get 401. */
  readonly requireHeaders?: Readonly<Record<string, string>>;
}

/** One call a mock server answered. */
export interface MockCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** How the call was reached: `stdio` or `http`. */
  readonly transport: "stdio" | "http";
  readonly result: CallToolResult | undefined;
  /** The error message when the handler threw. */
  readonly error?: string;
}

function checkOptions(options: MockServerOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgument(
      "mockServer(): options must be an object { name, tools?, resources? }.",
    );
  }
  if (typeof options.name !== "string" || options.name === "") {
    throw new InvalidArgument("mockServer(): name must be a non-empty string.");
  }
  if (options.tools !== undefined && !Array.isArray(options.tools)) {
    throw new InvalidArgument(
      "mockServer(): tools must be an array of { name, handler, inputSchema? }.",
    );
  }
  const names = new Set<string>();
  (options.tools ?? []).forEach((tool, index) => {
    const where = `mockServer(): tools[${index}]`;
    if (typeof tool?.name !== "string" || tool.name === "")
      throw new InvalidArgument(`${where}.name must be a non-empty string.`);
    if (names.has(tool.name))
      throw new InvalidArgument(`${where}: a tool named "${tool.name}" is already defined.`);
    names.add(tool.name);
    if (typeof tool.handler !== "function")
      throw new InvalidArgument(`${where} ("${tool.name}"): handler must be a function.`);
    for (const key of ["inputSchema", "outputSchema"] as const) {
      const schema = tool[key];
      if (
        schema !== undefined &&
        (typeof schema !== "object" || schema === null || schema.type !== "object")
      ) {
        throw new InvalidArgument(
          `${where} ("${tool.name}"): ${key} must be a JSON Schema object with type "object".`,
        );
      }
    }
  });
  (options.resources ?? []).forEach((resource, index) => {
    if (
      typeof resource?.uri !== "string" ||
      typeof resource.text !== "string" ||
      typeof resource.name !== "string"
    ) {
      throw new InvalidArgument(
        `mockServer(): resources[${index}] must be { uri, name, text, mimeType? }.`,
      );
    }
  });
  checkPrompts(options.prompts);
  if (
    options.pageSize !== undefined &&
    (!Number.isInteger(options.pageSize) || options.pageSize < 1)
  ) {
    throw new InvalidArgument(
      `mockServer(): pageSize must be a whole number ≥ 1, got ${JSON.stringify(options.pageSize)}.`,
    );
  }
}

function checkPrompts(prompts: unknown): void {
  if (prompts === undefined) return;
  if (!Array.isArray(prompts)) {
    throw new InvalidArgument(
      "mockServer(): prompts must be an array of { name, handler, arguments? }.",
    );
  }
  const names = new Set<string>();
  prompts.forEach((prompt: Partial<MockPrompt> | null, index) => {
    const where = `mockServer(): prompts[${index}]`;
    if (typeof prompt?.name !== "string" || prompt.name === "")
      throw new InvalidArgument(`${where}.name must be a non-empty string.`);
    if (names.has(prompt.name))
      throw new InvalidArgument(`${where}: a prompt named "${prompt.name}" is already defined.`);
    names.add(prompt.name);
    if (typeof prompt.handler !== "function")
      throw new InvalidArgument(`${where} ("${prompt.name}"): handler must be a function.`);
    if (prompt.arguments !== undefined) {
      if (!Array.isArray(prompt.arguments))
        throw new InvalidArgument(
          `${where} ("${prompt.name}"): arguments must be an array of { name, description?, required? }.`,
        );
      prompt.arguments.forEach((argument: Partial<MockPromptArgument> | null, at) => {
        if (typeof argument?.name !== "string" || argument.name === "")
          throw new InvalidArgument(
            `${where} ("${prompt.name}"): arguments[${at}].name must be a non-empty string.`,
          );
      });
    }
  });
}

/**
 * A mock MCP server built from tool definitions and handlers, for testing agent prompts
 * or clients without a real server. The handlers run in the test's process; the server is
 * the MCP SDK's own, reached over real stdio (through a small bridge process) or over
 * Streamable HTTP on 127.0.0.1.
 *
 * @example
 * ```ts
 * await using mock = mockServer({
 *   name: "weather",
 *   tools: [{ name: "forecast", inputSchema: { type: "object", properties: { city: { type: "string" } } }, handler: ({ city }) => `Sunny in ${String(city)}` }],
 * });
 * const client = kit.direct(await mock.stdio());
 * expect(await client.callTool("forecast", { city: "Lisbon" })).toEqual({ content: [{ type: "text", text: "Sunny in Lisbon" }] });
 * ```
 */
export function mockServer(options: MockServerOptions): MockServer {
  checkOptions(options);
  return new MockServer(options);
}

/**
 * A running (or ready to run) mock server; see {@link mockServer}. Close it when done.
 *
 * @example
 * ```ts
 * await using mock = mockServer({ name: "echo", tools: [{ name: "echo", handler: (args) => JSON.stringify(args) }] });
 * const overHttp = kit.direct(await mock.http());
 * ```
 */
export class MockServer implements AsyncDisposable {
  private readonly recorded: MockCall[] = [];
  private readonly promptGets: MockPromptGet[] = [];
  private socketDir: string | undefined;
  private netServer: NetServer | undefined;
  private readonly sockets = new Set<Socket>();
  private httpUrl: string | undefined;
  private httpServer: ReturnType<typeof createHttpServer> | undefined;
  private readonly httpTransports = new Map<string, StreamableHTTPServerTransport>();
  private readonly servers = new Set<Server>();

  /** @internal Use {@link mockServer}. */
  constructor(private readonly options: MockServerOptions) {}

  /** Every call answered so far, over any transport. */
  get calls(): readonly MockCall[] {
    return this.recorded.slice();
  }

  /** Every `prompts/get` answered or refused so far, over any transport. */
  get prompts(): readonly MockPromptGet[] {
    return this.promptGets.slice();
  }

  /**
   * A stdio server spec for this mock: each process started from it is a bridge to a new
   * server session in this process. Starts listening on first use.
   */
  async stdio(): Promise<StdioServer> {
    if (!this.netServer) {
      this.socketDir = mkdtempSync(join(tmpdir(), "m3-mock-"));
      const path = join(this.socketDir, "mock.sock");
      const server = createNetServer((socket) => this.acceptStdio(socket));
      this.netServer = server;
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(path, () => resolve());
      });
    }
    const address = this.netServer.address();
    return {
      name: this.options.name,
      command: process.execPath,
      args: [join(__dirname, "stdio-bridge.js"), String(address)],
    };
  }

  /** An HTTP server spec for this mock (Streamable HTTP on 127.0.0.1). Starts listening on first use. */
  async http(): Promise<HttpServer> {
    if (!this.httpServer) {
      const server = createHttpServer((request, response) => {
        this.serveHttp(request, response).catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500).end(String(error));
        });
      });
      this.httpServer = server;
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
      });
      const address = server.address();
      if (typeof address !== "object" || address === null)
        throw new Error("mock HTTP server has no port");
      this.httpUrl = `http://127.0.0.1:${address.port}/mcp`;
    }
    return { name: this.options.name, url: this.httpUrl! };
  }

  /** Stops listening and ends every session. Idempotent. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([...this.servers].map((server) => server.close().catch(() => undefined)));
    await Promise.all(
      [...this.httpTransports.values()].map((transport) =>
        transport.close().catch(() => undefined),
      ),
    );
    this.httpTransports.clear();
    if (this.netServer)
      await new Promise<void>((resolve) => this.netServer!.close(() => resolve()));
    if (this.httpServer) {
      this.httpServer.closeAllConnections();
      await new Promise<void>((resolve) => this.httpServer!.close(() => resolve()));
    }
    this.netServer = undefined;
    this.httpServer = undefined;
    if (this.socketDir) rmSync(this.socketDir, { recursive: true, force: true });
    this.socketDir = undefined;
  }

  /** Same as {@link MockServer.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private acceptStdio(socket: Socket): void {
    this.sockets.add(socket);
    const server = this.newSession("stdio");
    const transport = new StdioServerTransport(socket, socket);
    socket.on("close", () => {
      this.sockets.delete(socket);
      void server.close().catch(() => undefined);
    });
    socket.on("error", () => socket.destroy());
    void server.connect(transport);
  }

  private async serveHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    for (const [name, value] of Object.entries(this.options.requireHeaders ?? {})) {
      if (request.headers[name.toLowerCase()] !== value) {
        response
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: `mock server: missing or wrong header ${name}` }));
        return;
      }
    }
    const sessionId = request.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? this.httpTransports.get(sessionId) : undefined;
    if (existing) {
      await existing.handleRequest(request, response);
      return;
    }
    if (request.method !== "POST") {
      response.writeHead(400).end("mock server: no such session");
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.httpTransports.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.httpTransports.delete(transport.sessionId);
    };
    await this.newSession("http").connect(transport);
    await transport.handleRequest(request, response);
  }

  private newSession(transport: "stdio" | "http"): Server {
    const tools = this.options.tools ?? [];
    const resources = this.options.resources ?? [];
    const prompts = this.options.prompts ?? [];
    const server = new Server(
      { name: this.options.name, version: this.options.version ?? "1.0.0" },
      {
        capabilities: {
          tools: {},
          logging: {},
          ...(resources.length ? { resources: {} } : {}),
          ...(prompts.length ? { prompts: {} } : {}),
        },
        ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
      },
    );
    this.servers.add(server);
    server.onclose = () => this.servers.delete(server);
    const listed: Tool[] = tools.map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: (tool.inputSchema ?? { type: "object" }) as Tool["inputSchema"],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    }));
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const size = this.options.pageSize ?? (listed.length || 1);
      const start = request.params?.cursor ? Number(request.params.cursor) : 0;
      if (!Number.isInteger(start) || start < 0 || start > listed.length) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `mock server: unknown cursor ${JSON.stringify(request.params?.cursor)}`,
        );
      }
      const end = start + size;
      return {
        tools: listed.slice(start, end),
        ...(end < listed.length ? { nextCursor: String(end) } : {}),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = tools.find((entry) => entry.name === request.params.name);
      const args = request.params.arguments ?? {};
      if (!tool) {
        return {
          isError: true,
          content: [{ type: "text", text: `mock server: no tool named ${request.params.name}` }],
        };
      }
      const token = request.params._meta?.progressToken;
      const context: MockToolContext = {
        elicit: (params) =>
          extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema),
        sample: (params) =>
          extra.sendRequest(
            { method: "sampling/createMessage", params },
            CreateMessageResultSchema,
          ),
        listRoots: async () =>
          (await extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema)).roots,
        log: (level, data) => server.sendLoggingMessage({ level, data }),
        progress: async (progress, total, message) => {
          if (token === undefined) return;
          await extra.sendNotification({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message ? { message } : {}),
            },
          });
        },
        signal: extra.signal,
        headers: Object.fromEntries(
          Object.entries(extra.requestInfo?.headers ?? {}).map(([name, value]) => [
            name,
            String(value),
          ]),
        ),
      };
      try {
        const answer = await tool.handler(args, context);
        const result: CallToolResult =
          typeof answer === "string" ? { content: [{ type: "text", text: answer }] } : answer;
        this.recorded.push({ tool: tool.name, arguments: args, transport, result });
        return result;
      } catch (error) {
        if (error instanceof McpError) {
          this.recorded.push({
            tool: tool.name,
            arguments: args,
            transport,
            result: undefined,
            error: error.message,
          });
          throw error;
        }
        const message = error instanceof Error ? error.message : String(error);
        const result: CallToolResult = {
          isError: true,
          content: [{ type: "text", text: message }],
        };
        this.recorded.push({ tool: tool.name, arguments: args, transport, result, error: message });
        return result;
      }
    });
    if (prompts.length) this.servePrompts(server, prompts, transport);
    if (resources.length) {
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({
        resources: resources.map(({ uri, name, mimeType }) => ({
          uri,
          name,
          ...(mimeType ? { mimeType } : {}),
        })),
      }));
      server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
        const resource = resources.find((entry) => entry.uri === request.params.uri);
        if (!resource)
          throw new McpError(
            ErrorCode.InvalidParams,
            `mock server: no resource ${request.params.uri}`,
          );
        return {
          contents: [
            {
              uri: resource.uri,
              text: resource.text,
              ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
            },
          ],
        };
      });
    }
    return server;
  }

  private servePrompts(
    server: Server,
    prompts: readonly MockPrompt[],
    transport: "stdio" | "http",
  ): void {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: prompts.map((prompt) => ({
        name: prompt.name,
        ...(prompt.description ? { description: prompt.description } : {}),
        ...(prompt.arguments ? { arguments: prompt.arguments.map((entry) => ({ ...entry })) } : {}),
      })),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      const args = request.params.arguments ?? {};
      const record = (error?: string): void => {
        this.promptGets.push({
          prompt: request.params.name,
          arguments: args,
          transport,
          ...(error === undefined ? {} : { error }),
        });
      };
      const prompt = prompts.find((entry) => entry.name === request.params.name);
      const refuse = (message: string): never => {
        record(message);
        throw new McpError(ErrorCode.InvalidParams, message);
      };
      if (!prompt) {
        return refuse(
          `mock server: no prompt named ${request.params.name} (prompts: ${prompts.map((entry) => entry.name).join(", ")})`,
        );
      }
      const missing = (prompt.arguments ?? []).filter(
        (entry) => entry.required && args[entry.name] === undefined,
      );
      if (missing.length) {
        return refuse(
          `mock server: prompt ${prompt.name} needs argument${missing.length > 1 ? "s" : ""} ${missing.map((entry) => entry.name).join(", ")}`,
        );
      }
      let rendered: string | GetPromptResult;
      try {
        rendered = await prompt.handler(args);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        record(message);
        throw new McpError(ErrorCode.InternalError, message);
      }
      record();
      return typeof rendered === "string"
        ? {
            ...(prompt.description ? { description: prompt.description } : {}),
            messages: [{ role: "user", content: { type: "text", text: rendered } }],
          }
        : rendered;
    });
  }
}
