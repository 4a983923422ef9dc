import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  ErrorCode,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListRootsRequestSchema,
  ListToolsResultSchema,
  GetPromptResultSchema,
  ReadResourceResultSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ClientCapabilities,
  type ClientNotification,
  type CompleteResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitResult,
  type GetPromptResult,
  type Implementation,
  type JSONRPCMessage,
  type ListPromptsResult,
  type ListResourceTemplatesResult,
  type ListResourcesResult,
  type ListToolsResult,
  type LoggingLevel,
  type Progress,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Root,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ClientClosed,
  describeExit,
  ElicitationRoundLimit,
  ElicitationUnexpected,
  InvalidArgument,
  M3Error,
  OperationTimeout,
  ProtocolError,
  RepeatingCursor,
  SchemaValidationError,
  ServerStartError,
  scrubbedCause,
  TraceStillOpen,
  TransportError,
} from "../errors.js";
import { monotonicNow } from "../evidence/clock.js";
import { elicitationsOf, type Elicitation } from "../evidence/elicitations.js";
import { TraceRecorder } from "../evidence/recorder.js";
import type { Trace } from "../evidence/trace.js";
import type { KitContext } from "../kit/context.js";
import { childEnvironment, ManagedProcess } from "../processes/managed-process.js";
import type { ResolvedServer } from "../servers/spec.js";
import {
  ActivePlan,
  parseElicitationPlan,
  type ElicitationAnswer,
  type ElicitationPlanInput,
  type ElicitationRequest,
} from "./elicitation-plan.js";
import {
  NotificationHub,
  type ListenOptions,
  type NotificationFilter,
  type NotificationStream,
  type ReceivedNotification,
} from "./notifications.js";
import { ProcessTransport } from "./process-transport.js";
import { operationTag, RecordingTransport, type CloseCause } from "./recording-transport.js";
import { SchemaValidator } from "./schema-validation.js";
import { directClientOptionsSchema } from "./client-options.js";
import { checkInput } from "../validation/check-input.js";
import {
  parseHttpAuth,
  redactText,
  redactValue,
  resolveHttpAuth,
  type HttpAuth,
} from "./secrets.js";
import { authorizeWithOAuth, TestOAuthProvider } from "./oauth.js";
import { sdkClient, sdkHttp } from "./sdk-modules.js";

/**
 * Answers a server's `sampling/createMessage` request in place of a model.
 *
 * @example
 * ```ts
 * const sampling: SamplingHandler = () => ({ model: "stub", role: "assistant", content: { type: "text", text: "ok" } });
 * ```
 */
export type SamplingHandler = (
  params: CreateMessageRequest["params"],
) => CreateMessageResult | Promise<CreateMessageResult>;

/**
 * Options of {@link MCPTestKit.direct}.
 *
 * @example
 * ```ts
 * const client = kit.direct(server, { timeoutMs: 5000, protocolVersion: "2025-06-18", validateSchemas: true });
 * ```
 */
export interface DirectClientOptions {
  /** Default timeout of every request, in milliseconds (default 30 000). */
  readonly timeoutMs?: number;
  /**
   * Timeout of starting the server and the MCP handshake, in milliseconds (default: the
   * larger of `timeoutMs` and 30 000, so a short request timeout does not fail a slow start).
   */
  readonly startTimeoutMs?: number;
  /** How the client introduces itself in `initialize`. */
  readonly clientInfo?: Implementation;
  /**
   * The protocol revision the client asks for in `initialize` (default: the SDK's latest).
   * The one the server chose is {@link ServerIdentity.protocolVersion}.
   */
  readonly protocolVersion?: string;
  /**
   * Check tool arguments against the tool's `inputSchema` before sending, and
   * `structuredContent` against its `outputSchema` (default false). Per call: `validate`.
   */
  readonly validateSchemas?: boolean;
  /** Answers `sampling/createMessage`; advertises the `sampling` capability. */
  readonly sampling?: SamplingHandler;
  /** The roots `roots/list` answers with; advertises `roots` (with `listChanged`). */
  readonly roots?: readonly Root[];
  /**
   * What to answer when the server asks for input (`elicitation/create`); advertises the
   * `elicitation` capability. Per call: {@link ToolCallOptions.elicitation}.
   */
  readonly elicitation?: ElicitationPlanInput;
  /** The elicitation modes advertised (default both, `form` and `url`). */
  readonly elicitationModes?: readonly ("form" | "url")[];
  /**
   * More capabilities to advertise. One advertised without a handler (say `sampling`
   * without {@link DirectClientOptions.sampling}) is answered with a clear error, recorded.
   */
  readonly capabilities?: ClientCapabilities;
  /** HTTP servers only: a bearer token and headers, from secret references. */
  readonly auth?: HttpAuth;
}

/** Per-call options. */
export interface CallOptions {
  /** Timeout of this request, in milliseconds; overrides the client's default. */
  readonly timeoutMs?: number;
  /** `_meta` to send with the request's params. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/**
 * Options of {@link DirectClient.callTool}.
 *
 * @example
 * ```ts
 * await client.callTool("slow", {}, { timeoutMs: 60_000, resetTimeoutOnProgress: true, onProgress: (p) => console.log(p.progress) });
 * ```
 */
export interface ToolCallOptions extends CallOptions {
  /** Called with each progress notification the server sends for this call. */
  readonly onProgress?: (progress: Progress) => void;
  /** Restart the timeout at each progress notification (default false). */
  readonly resetTimeoutOnProgress?: boolean;
  /** Validate against the tool's schemas; overrides {@link DirectClientOptions.validateSchemas}. */
  readonly validate?: boolean;
  /** The elicitation plan for this call; overrides the client's. */
  readonly elicitation?: ElicitationPlanInput;
}

/** What the server said about itself during `initialize`. */
export interface ServerIdentity {
  readonly serverInfo: Implementation | undefined;
  readonly capabilities: ServerCapabilities | undefined;
  readonly instructions: string | undefined;
  /** The protocol revision the server chose (the negotiated one). */
  readonly protocolVersion: string | undefined;
  /** The protocol revision the client asked for. */
  readonly requestedProtocolVersion: string;
}

/**
 * What a completion refers to: a prompt by name, or a resource template by URI template.
 *
 * @example
 * ```ts
 * await client.complete({ resourceTemplate: "demo://resource/dynamic/text/{resourceId}" }, { name: "resourceId", value: "1" });
 * ```
 */
export type CompletionRef = { readonly prompt: string } | { readonly resourceTemplate: string };

/**
 * The MCP SDK's own shape of a completion request (`Client.complete()`'s params), which
 * {@link DirectClient.complete} accepts as well: `ref` as the protocol writes it, the
 * argument, and the arguments already chosen in `context.arguments`.
 *
 * @example
 * ```ts
 * await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "Eng" } });
 * ```
 */
export interface CompleteRequest {
  readonly ref:
    | { readonly type: "ref/prompt"; readonly name: string }
    | { readonly type: "ref/resource"; readonly uri: string };
  readonly argument: { readonly name: string; readonly value: string };
  readonly context?: { readonly arguments?: Readonly<Record<string, string>> };
}

/** The kit's `{ prompt }` / `{ resourceTemplate }` ref of an SDK-shaped request; a string is what is wrong. */
function refOfRequest(ref: unknown): CompletionRef | string {
  if (typeof ref !== "object" || ref === null) return "ref must be an object";
  const { type, name, uri } = ref as { type?: unknown; name?: unknown; uri?: unknown };
  if (type === "ref/prompt") {
    return typeof name === "string" ? { prompt: name } : 'a "ref/prompt" ref needs name: string';
  }
  if (type === "ref/resource") {
    return typeof uri === "string"
      ? { resourceTemplate: uri }
      : 'a "ref/resource" ref needs uri: string (the URI template)';
  }
  return `ref.type must be "ref/prompt" or "ref/resource", got ${JSON.stringify(type)}`;
}

/**
 * A request the server sent the client, and what became of it.
 *
 * @example
 * ```ts
 * expect(client.serverRequests).toEqual([expect.objectContaining({ method: "roots/list", status: "answered" })]);
 * ```
 */
export interface ServerRequestRecord {
  /** `sampling/createMessage`, `roots/list`, `elicitation/create`, or anything else. */
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * `answered`; `unhandled` (no handler: answered with an error); `unexpected` (no rule of
   * the elicitation plan matched); `round_limit`; `handler_failed` (the test's handler threw).
   */
  readonly status: "answered" | "unhandled" | "unexpected" | "round_limit" | "handler_failed";
  /** The answer, when there was one. */
  readonly result?: unknown;
  /** The error the server was answered with, otherwise. */
  readonly error?: string;
  /** For elicitations answered by a plan: the index of the rule that answered. */
  readonly rule?: number;
  readonly at: number;
}

/** A log message the server sent (`notifications/message`). */
export interface LogMessage {
  readonly level: LoggingLevel;
  readonly logger?: string;
  readonly data: unknown;
  readonly at: number;
}

/** One operation of the client in flight: its elicitation plan and what went wrong in it. */
interface Operation {
  readonly plan: ActivePlan | undefined;
  rounds: number;
  failure: M3Error | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const LOGGING_LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];
/** A cap on pages, in case a server invents a new cursor forever. */
const MAX_PAGES = 10_000;

function checkTimeout(value: unknown, where: string): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value <= 0)) {
    throw new InvalidArgument(
      `${where}: timeoutMs must be a positive number of milliseconds, got ${JSON.stringify(value)}.`,
    );
  }
}

function checkMeta(value: unknown, where: string): void {
  if (
    value !== undefined &&
    (typeof value !== "object" || value === null || Array.isArray(value))
  ) {
    throw new InvalidArgument(`${where}: meta must be an object (sent as the request's _meta).`);
  }
}

function checkCallOptions(options: CallOptions | undefined, where: string): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgument(`${where}: options must be an object.`);
  }
  checkTimeout(options.timeoutMs, where);
  checkMeta(options.meta, where);
}

function checkString(value: unknown, what: string, where: string): asserts value is string {
  if (typeof value !== "string" || value === "") {
    throw new InvalidArgument(
      `${where}: ${what} must be a non-empty string, got ${JSON.stringify(value)}.`,
    );
  }
}

function paramsWith<T extends Record<string, unknown>>(params: T, meta: CallOptions["meta"]): T {
  return meta ? { ...params, _meta: { ...meta } } : params;
}

/**
 * A recorded MCP client for agent-free tests of a server: the SDK's `Client` over the SDK's
 * transports, with every message recorded into {@link DirectClient.trace}. It covers the
 * whole protocol a server ships: tools, resources and templates, subscriptions, prompts,
 * completions, logging, progress, client notifications, and the server's own requests
 * (sampling, roots, elicitation) answered by handlers the test supplies.
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
  private readonly startTimeoutMs: number;
  private readonly release: () => void;
  private readonly hub: NotificationHub;
  private readonly validator = new SchemaValidator();
  private readonly validateByDefault: boolean;
  private readonly requestedVersion: string;
  private readonly auth: HttpAuth | undefined;
  private readonly clientPlan: ActivePlan | undefined;
  private readonly samplingHandler: SamplingHandler | undefined;
  private readonly requests: ServerRequestRecord[] = [];
  private readonly operations: Operation[] = [];
  private readonly tools = new Map<string, Tool>();
  /** Progress callbacks by the operation tag, then by the progress token on the wire. */
  private readonly progressByTag = new WeakMap<object, (progress: Progress) => void>();
  private readonly progressByToken = new Map<string | number, (progress: Progress) => void>();
  private readonly advertised: ClientCapabilities;
  private secrets: ReadonlyMap<string, string> = new Map();
  private currentRoots: Root[];
  private negotiatedVersion: string | undefined;
  private initializeId: string | number | undefined;
  private connecting: Promise<ServerIdentity> | undefined;
  private process: ManagedProcess | undefined;
  private http: StreamableHTTPClientTransport | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;
  private readonly createdAt = Date.now();

  /** @internal Created by {@link MCPTestKit.direct}. */
  constructor(
    private readonly spec: ResolvedServer,
    private readonly kit: KitContext,
    options: DirectClientOptions = {},
  ) {
    this.server = spec.name;
    const where = `kit.direct(${JSON.stringify(spec.name)})`;
    checkInput(
      directClientOptionsSchema,
      options,
      (problem) =>
        new InvalidArgument(`${where}: ${problem.field || "options"} ${problem.problem}`),
    );
    const modes = options.elicitationModes ?? ["form", "url"];
    if (options.auth !== undefined) {
      if (spec.kind !== "http") {
        throw new InvalidArgument(
          `${where}: auth is for HTTP servers; give a stdio server its secrets through its env.`,
        );
      }
      this.auth = parseHttpAuth(options.auth, `${where}: auth`);
    }
    this.clientPlan =
      options.elicitation === undefined
        ? undefined
        : new ActivePlan(parseElicitationPlan(options.elicitation, `${where}: elicitation`));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.startTimeoutMs = options.startTimeoutMs ?? Math.max(this.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.validateByDefault = options.validateSchemas === true;
    this.requestedVersion = options.protocolVersion ?? SUPPORTED_PROTOCOL_VERSIONS[0]!;
    this.samplingHandler = options.sampling;
    this.currentRoots = options.roots ? [...options.roots] : [];
    this.hub = new NotificationHub(spec.name);

    const capabilities: ClientCapabilities = { ...options.capabilities };
    if (options.sampling) capabilities.sampling ??= {};
    if (options.roots) capabilities.roots = { listChanged: true, ...capabilities.roots };
    if (options.elicitation) {
      capabilities.elicitation ??= Object.fromEntries(modes.map((mode) => [mode, {}]));
    }
    this.advertised = capabilities;
    this.client = new (sdkClient().Client)(
      options.clientInfo ?? { name: "jest-m3", version: "0.1.0" },
      {
        capabilities,
      },
    );
    this.installServerRequestHandlers(capabilities);
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

  /** Every notification the server sent so far, in order (progress and log messages too). */
  get notifications(): readonly ReceivedNotification[] {
    return this.hub.received;
  }

  /** Every log message (`notifications/message`) the server sent so far. */
  get logMessages(): readonly LogMessage[] {
    return this.hub.received
      .filter((entry) => entry.method === "notifications/message")
      .map((entry) => ({
        level: entry.params.level as LoggingLevel,
        ...(typeof entry.params.logger === "string" ? { logger: entry.params.logger } : {}),
        data: entry.params.data,
        at: entry.at,
      }));
  }

  /** Every request the server sent this client (sampling, roots, elicitation, ...), answered or not. */
  get serverRequests(): readonly ServerRequestRecord[] {
    return this.requests.slice();
  }

  /** Every elicitation so far, read from the trace: what was asked and what was answered. */
  get elicitations(): Elicitation[] {
    return elicitationsOf(this.recorder.snapshot());
  }

  /** Starts the server (if stdio) and runs the MCP handshake. Other methods call it for you. */
  initialize(): Promise<ServerIdentity> {
    this.assertUsable("initialize");
    this.connecting ??= this.connect();
    return this.connecting;
  }

  /**
   * Every tool the server lists, following `nextCursor` through all pages. A cursor that
   * repeats throws {@link RepeatingCursor} instead of looping.
   */
  async listTools(options?: CallOptions): Promise<Tool[]> {
    return this.allPages("tools/list", "tools", (cursor) => this.listToolsPage(cursor, options));
  }

  /** One page of `tools/list`: its tools and the `nextCursor` to pass for the next one. */
  async listToolsPage(cursor?: string, options?: CallOptions): Promise<ListToolsResult> {
    return this.page<ListToolsResult>("tools/list", ListToolsResultSchema, cursor, options).then(
      (page) => {
        for (const tool of page.tools) this.tools.set(tool.name, tool);
        return page;
      },
    );
  }

  /**
   * Calls a tool. A tool that fails returns a result with `isError: true` (a value, not an
   * exception); the recorded call then has status `tool_error`.
   *
   * @example
   * ```ts
   * const steps: number[] = [];
   * await client.callTool("trigger-long-running-operation", { duration: 1, steps: 2 }, {
   *   onProgress: (progress) => steps.push(progress.progress),
   * });
   * ```
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: ToolCallOptions = {},
  ): Promise<CallToolResult> {
    const where = `client.callTool(${JSON.stringify(name)})`;
    checkString(name, "the tool name", "client.callTool()");
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new InvalidArgument(
        `${where}: arguments must be an object, got ${JSON.stringify(args)}.`,
      );
    }
    checkCallOptions(options, where);
    if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
      throw new InvalidArgument(`${where}: onProgress must be a function.`);
    }
    const plan =
      options.elicitation === undefined
        ? undefined
        : new ActivePlan(parseElicitationPlan(options.elicitation, `${where}: elicitation`));
    const validate = options.validate ?? this.validateByDefault;
    let tool: Tool | undefined;
    if (validate) {
      await this.initialize();
      if (!this.tools.has(name))
        await this.listTools(options.timeoutMs ? { timeoutMs: options.timeoutMs } : undefined);
      tool = this.tools.get(name);
      if (!tool) {
        throw new SchemaValidationError(this.server, name, "inputSchema", [
          {
            path: "",
            message:
              "the server does not list this tool, so there is no schema to check against (pass { validate: false } to call it anyway)",
          },
        ]);
      }
      const check = this.validator.check(tool.inputSchema, args);
      if (!check.valid)
        throw new SchemaValidationError(this.server, name, "inputSchema", check.issues);
    }
    const result = await this.request(
      `tools/call ${JSON.stringify(name)}`,
      options,
      () =>
        this.client.request(
          { method: "tools/call", params: paramsWith({ name, arguments: args }, options.meta) },
          CallToolResultSchema,
          {
            ...this.requestOptions(options),
            // The SDK's own progress handler only sets the token and resets the timeout: it
            // drops a last notification that is processed after the response. The client
            // hands progress to the test itself, in wire order (see incoming()).
            ...(options.onProgress ? { onprogress: () => undefined } : {}),
            ...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true } : {}),
          },
        ) as Promise<CallToolResult>,
      plan,
      options.onProgress,
    );
    if (tool?.outputSchema && !result.isError) {
      if (result.structuredContent === undefined) {
        throw new SchemaValidationError(this.server, name, "outputSchema", [
          {
            path: "",
            message:
              "is missing: the tool declares an outputSchema but returned no structuredContent",
          },
        ]);
      }
      const check = this.validator.check(tool.outputSchema, result.structuredContent);
      if (!check.valid)
        throw new SchemaValidationError(this.server, name, "outputSchema", check.issues);
    }
    return result;
  }

  /** Every resource the server lists (all pages; a repeating cursor throws). */
  async listResources(options?: CallOptions): Promise<Resource[]> {
    return this.allPages("resources/list", "resources", (cursor) =>
      this.listResourcesPage(cursor, options),
    );
  }

  /** One page of `resources/list`, with its `nextCursor`. */
  async listResourcesPage(cursor?: string, options?: CallOptions): Promise<ListResourcesResult> {
    return this.page<ListResourcesResult>(
      "resources/list",
      ListResourcesResultSchema,
      cursor,
      options,
    );
  }

  /** Every resource template the server lists (all pages; a repeating cursor throws). */
  async listResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]> {
    return this.allPages("resources/templates/list", "resourceTemplates", (cursor) =>
      this.listResourceTemplatesPage(cursor, options),
    );
  }

  /** One page of `resources/templates/list`, with its `nextCursor`. */
  async listResourceTemplatesPage(
    cursor?: string,
    options?: CallOptions,
  ): Promise<ListResourceTemplatesResult> {
    return this.page<ListResourceTemplatesResult>(
      "resources/templates/list",
      ListResourceTemplatesResultSchema,
      cursor,
      options,
    );
  }

  /** Reads one resource (a listed one, or a URI made from a template). */
  async readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    checkString(uri, "the URI", "client.readResource()");
    checkCallOptions(options, "client.readResource()");
    return this.request(`resources/read ${JSON.stringify(uri)}`, options, () =>
      this.client.request(
        { method: "resources/read", params: paramsWith({ uri }, options?.meta) },
        ReadResourceResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /**
   * Subscribes to a resource's updates. Listen first (`client.listen(...)`) to await the
   * `notifications/resources/updated` that follow.
   */
  async subscribeResource(uri: string, options?: CallOptions): Promise<void> {
    checkString(uri, "the URI", "client.subscribeResource()");
    checkCallOptions(options, "client.subscribeResource()");
    await this.request(`resources/subscribe ${JSON.stringify(uri)}`, options, () =>
      this.client.request(
        { method: "resources/subscribe", params: paramsWith({ uri }, options?.meta) },
        EmptyResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /** Ends a subscription. */
  async unsubscribeResource(uri: string, options?: CallOptions): Promise<void> {
    checkString(uri, "the URI", "client.unsubscribeResource()");
    checkCallOptions(options, "client.unsubscribeResource()");
    await this.request(`resources/unsubscribe ${JSON.stringify(uri)}`, options, () =>
      this.client.request(
        { method: "resources/unsubscribe", params: paramsWith({ uri }, options?.meta) },
        EmptyResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /** Every prompt the server lists (all pages; a repeating cursor throws). */
  async listPrompts(options?: CallOptions): Promise<Prompt[]> {
    return this.allPages("prompts/list", "prompts", (cursor) =>
      this.listPromptsPage(cursor, options),
    );
  }

  /** One page of `prompts/list`, with its `nextCursor`. */
  async listPromptsPage(cursor?: string, options?: CallOptions): Promise<ListPromptsResult> {
    return this.page<ListPromptsResult>("prompts/list", ListPromptsResultSchema, cursor, options);
  }

  /** Gets one prompt, filled in with `args`. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: CallOptions,
  ): Promise<GetPromptResult> {
    checkString(name, "the prompt name", "client.getPrompt()");
    checkCallOptions(options, "client.getPrompt()");
    return this.request(`prompts/get ${JSON.stringify(name)}`, options, () =>
      this.client.request(
        { method: "prompts/get", params: paramsWith({ name, arguments: args }, options?.meta) },
        GetPromptResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /**
   * Asks the server to complete an argument of a prompt or a resource template
   * (`completion/complete`). `context` gives the arguments already chosen.
   *
   * @example
   * ```ts
   * const { completion } = await client.complete({ prompt: "completable-prompt" }, { name: "department", value: "Eng" });
   * expect(completion.values).toEqual(["Engineering"]);
   * ```
   */
  complete(
    ref: CompletionRef,
    argument: { readonly name: string; readonly value: string },
    options?: CallOptions & { readonly context?: Readonly<Record<string, string>> },
  ): Promise<CompleteResult>;
  /**
   * The same, in the MCP SDK's own shape (`{ ref, argument, context }`, see
   * {@link CompleteRequest}), so code written against the SDK's `Client.complete()` works.
   *
   * @example
   * ```ts
   * const { completion } = await client.complete({
   *   ref: { type: "ref/prompt", name: "completable-prompt" },
   *   argument: { name: "department", value: "Eng" },
   * });
   * ```
   */
  complete(request: CompleteRequest, options?: CallOptions): Promise<CompleteResult>;
  async complete(
    first: CompletionRef | CompleteRequest,
    second?: { readonly name: string; readonly value: string } | CallOptions,
    third: CallOptions & { readonly context?: Readonly<Record<string, string>> } = {},
  ): Promise<CompleteResult> {
    const where = "client.complete()";
    if (typeof first === "object" && first !== null && "ref" in first && "argument" in first) {
      const request = first;
      const converted = refOfRequest(request.ref);
      if (typeof converted === "string") {
        throw new InvalidArgument(
          `${where}: ${converted} ({ ref: { type: "ref/prompt", name } } or { ref: { type: "ref/resource", uri } }), got ${JSON.stringify(request.ref)}.`,
        );
      }
      const context = request.context?.arguments;
      if (
        request.context !== undefined &&
        (typeof request.context !== "object" ||
          request.context === null ||
          (context !== undefined && (typeof context !== "object" || context === null)))
      ) {
        throw new InvalidArgument(
          `${where}: context must be { arguments: { <name>: <value> } }, got ${JSON.stringify(request.context)}.`,
        );
      }
      const options = (second ?? {}) as CallOptions;
      return this.complete(converted, request.argument, {
        ...options,
        ...(context ? { context } : {}),
      });
    }
    const ref = first;
    const argument = second as { readonly name: string; readonly value: string };
    const options = third;
    const hasPrompt = typeof ref === "object" && ref !== null && "prompt" in ref;
    const hasTemplate = typeof ref === "object" && ref !== null && "resourceTemplate" in ref;
    if (hasPrompt === hasTemplate) {
      throw new InvalidArgument(
        `${where}: ref must be { prompt: "<name>" } or { resourceTemplate: "<uri template>" }, got ${JSON.stringify(ref)}.`,
      );
    }
    const target = hasPrompt
      ? (ref as { prompt: unknown }).prompt
      : (ref as { resourceTemplate: unknown }).resourceTemplate;
    checkString(target, hasPrompt ? "ref.prompt" : "ref.resourceTemplate", where);
    if (
      typeof argument !== "object" ||
      argument === null ||
      typeof argument.name !== "string" ||
      typeof argument.value !== "string"
    ) {
      throw new InvalidArgument(
        `${where}: argument must be { name: string, value: string }, got ${JSON.stringify(argument)}.`,
      );
    }
    checkCallOptions(options, where);
    const params = paramsWith(
      {
        ref: hasPrompt
          ? { type: "ref/prompt", name: target }
          : { type: "ref/resource", uri: target },
        argument: { name: argument.name, value: argument.value },
        ...(options.context ? { context: { arguments: { ...options.context } } } : {}),
      },
      options.meta,
    );
    return this.request(`completion/complete ${JSON.stringify(argument.name)}`, options, () =>
      this.client.request(
        { method: "completion/complete", params },
        CompleteResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /** Sets the least severe log level the server should send (`logging/setLevel`). */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    if (!LOGGING_LEVELS.includes(level)) {
      throw new InvalidArgument(
        `client.setLoggingLevel(): level must be one of ${LOGGING_LEVELS.join(", ")}; got ${JSON.stringify(level)}.`,
      );
    }
    checkCallOptions(options, "client.setLoggingLevel()");
    await this.request(`logging/setLevel ${level}`, options, () =>
      this.client.request(
        { method: "logging/setLevel", params: paramsWith({ level }, options?.meta) },
        EmptyResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /** Sends `ping`; resolves when the server answers. */
  async ping(options?: CallOptions): Promise<void> {
    checkCallOptions(options, "client.ping()");
    await this.request("ping", options, () =>
      this.client.request(
        options?.meta
          ? { method: "ping", params: { _meta: { ...options.meta } } }
          : { method: "ping" },
        EmptyResultSchema,
        this.requestOptions(options),
      ),
    );
  }

  /**
   * Listens for notifications from the server, from now on: a stream to await them one by
   * one (`next()`), several (`take(n)`), or with `for await`; every wait is bounded by
   * `timeoutMs` and fails with `NotificationTimeout`.
   *
   * @example
   * ```ts
   * using logs = client.listen("notifications/message", { timeoutMs: 10_000 });
   * await client.setLoggingLevel("debug");
   * const first = await logs.next();
   * ```
   */
  listen(filter?: NotificationFilter, options?: ListenOptions): NotificationStream {
    this.assertUsable("listen");
    return this.hub.listen(filter, options);
  }

  /** Sends a notification to the server (any method, for custom notifications too). */
  async sendNotification(method: string, params?: Record<string, unknown>): Promise<void> {
    checkString(method, "the method", "client.sendNotification()");
    if (
      params !== undefined &&
      (typeof params !== "object" || params === null || Array.isArray(params))
    ) {
      throw new InvalidArgument(`client.sendNotification(): params must be an object.`);
    }
    if (method === "notifications/roots/list_changed") return this.sendRootsListChanged();
    await this.notify(method, params);
  }

  /** Sends `notifications/roots/list_changed` (the client must have been given `roots`). */
  async sendRootsListChanged(): Promise<void> {
    if (!this.advertised.roots) {
      throw new InvalidArgument(
        `client.sendRootsListChanged(): the client does not advertise roots. Give kit.direct(server, { roots: [...] }).`,
      );
    }
    await this.notify("notifications/roots/list_changed", undefined);
  }

  /** Replaces the roots `roots/list` answers with, and tells the server (`list_changed`). */
  async setRoots(roots: readonly Root[]): Promise<void> {
    if (
      !Array.isArray(roots) ||
      !roots.every((root: unknown) => typeof (root as Root)?.uri === "string")
    ) {
      throw new InvalidArgument(`client.setRoots(): roots must be an array of { uri, name? }.`);
    }
    if (!this.advertised.roots) {
      throw new InvalidArgument(
        `client.setRoots(): the client does not advertise roots. Give kit.direct(server, { roots: [] }) to start with none.`,
      );
    }
    this.currentRoots = [...roots];
    await this.sendRootsListChanged();
  }

  /** Sends `notifications/progress` for a request the server made (its progress token). */
  async sendProgress(
    progressToken: string | number,
    progress: number,
    more: { readonly total?: number; readonly message?: string } = {},
  ): Promise<void> {
    if (typeof progressToken !== "string" && typeof progressToken !== "number") {
      throw new InvalidArgument(
        `client.sendProgress(): progressToken must be a string or a number.`,
      );
    }
    if (typeof progress !== "number" || !Number.isFinite(progress)) {
      throw new InvalidArgument(`client.sendProgress(): progress must be a finite number.`);
    }
    await this.notify("notifications/progress", { progressToken, progress, ...more });
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

  private async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    this.assertUsable("sendNotification");
    await this.initialize();
    try {
      await this.client.notification(
        (params === undefined ? { method } : { method, params }) as ClientNotification,
      );
    } catch (error) {
      throw this.translate(error, `notification ${method}`, this.timeoutMs, {});
    }
  }

  private page<T extends { nextCursor?: string }>(
    method: string,
    schema: Parameters<Client["request"]>[1],
    cursor: string | undefined,
    options: CallOptions | undefined,
  ): Promise<T> {
    if (cursor !== undefined && typeof cursor !== "string") {
      throw new InvalidArgument(
        `${method}: cursor must be a string (a page's nextCursor), got ${JSON.stringify(cursor)}.`,
      );
    }
    checkCallOptions(options, method);
    const params = paramsWith(cursor === undefined ? {} : { cursor }, options?.meta);
    return this.request(
      method,
      options,
      () =>
        this.client.request(
          { method, ...(Object.keys(params).length ? { params } : {}) },
          schema,
          this.requestOptions(options),
        ) as Promise<T>,
    );
  }

  private async allPages<
    K extends string,
    T extends { nextCursor?: string } & Record<K, unknown[]>,
  >(method: string, key: K, fetchPage: (cursor: string | undefined) => Promise<T>): Promise<T[K]> {
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await fetchPage(cursor);
      pages += 1;
      items.push(...page[key]);
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (seen.has(cursor) || pages >= MAX_PAGES)
          throw new RepeatingCursor(this.server, method, cursor, pages);
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    return items as T[K];
  }

  private installServerRequestHandlers(capabilities: ClientCapabilities): void {
    if (capabilities.sampling) {
      this.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        const params = request.params as unknown as Record<string, unknown>;
        if (!this.samplingHandler)
          return this.unhandled("sampling/createMessage", params, "sampling");
        return (await this.answer("sampling/createMessage", params, () =>
          this.samplingHandler!(request.params),
        )) as CreateMessageResult;
      });
    }
    if (capabilities.roots) {
      this.client.setRequestHandler(ListRootsRequestSchema, async (request) => {
        const params = (request.params ?? {}) as Record<string, unknown>;
        return this.answer("roots/list", params, () => ({
          roots: this.currentRoots.map((root) => ({ ...root })),
        }));
      });
    }
    if (capabilities.elicitation) {
      this.client.setRequestHandler(ElicitRequestSchema, async (request) =>
        this.elicit(request.params as unknown as Record<string, unknown>),
      );
    }
    this.client.fallbackRequestHandler = async (request) =>
      this.unhandled(request.method, (request.params ?? {}) as Record<string, unknown>, undefined);
  }

  private recordRequest(record: Omit<ServerRequestRecord, "at">): void {
    this.requests.push({ ...redactValue(record, this.secrets), at: monotonicNow() });
  }

  private unhandled(
    method: string,
    params: Record<string, unknown>,
    option: string | undefined,
  ): never {
    const message =
      `jest-m3: the server sent ${method}, and this test's client has no handler for it` +
      (option ? `; give one with kit.direct(server, { ${option}: ... })` : "") +
      ".";
    this.recordRequest({ method, params, status: "unhandled", error: message });
    throw new McpError(option ? ErrorCode.InternalError : ErrorCode.MethodNotFound, message);
  }

  private async answer<T>(
    method: string,
    params: Record<string, unknown>,
    run: () => T | Promise<T>,
    rule?: number,
  ): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      const message = `jest-m3: the test's ${method} handler threw: ${error instanceof Error ? error.message : String(error)}`;
      this.recordRequest({
        method,
        params,
        status: "handler_failed",
        error: message,
        ...(rule === undefined ? {} : { rule }),
      });
      throw new McpError(ErrorCode.InternalError, message);
    }
    this.recordRequest({
      method,
      params,
      status: "answered",
      result,
      ...(rule === undefined ? {} : { rule }),
    });
    return result;
  }

  private async elicit(params: Record<string, unknown>): Promise<ElicitResult> {
    const method = "elicitation/create";
    const operation = this.operations.at(-1);
    const plan = operation?.plan ?? this.clientPlan;
    if (!plan) return this.unhandled(method, params, "elicitation");
    const request: ElicitationRequest = {
      mode: params.mode === "url" ? "url" : "form",
      message: typeof params.message === "string" ? params.message : "",
      ...(typeof params.requestedSchema === "object" && params.requestedSchema !== null
        ? { requestedSchema: params.requestedSchema as Record<string, unknown> }
        : {}),
      ...(typeof params.url === "string" ? { url: params.url } : {}),
      ...(typeof params.elicitationId === "string" ? { elicitationId: params.elicitationId } : {}),
    };
    if (operation) {
      operation.rounds += 1;
      if (operation.rounds > plan.roundLimit) {
        const failure = new ElicitationRoundLimit(this.server, plan.roundLimit);
        operation.failure ??= failure;
        this.recordRequest({ method, params, status: "round_limit", error: failure.message });
        throw new McpError(ErrorCode.InternalError, `jest-m3: ${failure.message}`);
      }
    }
    const taken = plan.take(request);
    if (!taken) {
      const failure = new ElicitationUnexpected(
        this.server,
        request.message,
        request.mode,
        plan.plan.rules.length,
      );
      if (operation) operation.failure ??= failure;
      this.recordRequest({ method, params, status: "unexpected", error: failure.message });
      throw new McpError(ErrorCode.InternalError, `jest-m3: ${failure.message}`);
    }
    const { rule, index } = taken;
    return this.answer(
      method,
      params,
      async () => {
        const answer: ElicitationAnswer =
          typeof rule.answer === "function" ? await rule.answer(request) : rule.answer;
        parseElicitationPlan(answer, `elicitation rule ${index} answer`);
        return (
          answer.action === "accept" && answer.content
            ? { action: "accept", content: { ...answer.content } }
            : { action: answer.action }
        ) as ElicitResult;
      },
      index,
    );
  }

  private requestOptions(options: CallOptions | undefined): { timeout: number } {
    return { timeout: options?.timeoutMs ?? this.timeoutMs };
  }

  private assertUsable(what: string): void {
    this.kit.assertOpen(`DirectClient.${what}()`);
    if (this.closing) throw new ClientClosed(this.server, `client.${what}()`);
  }

  private async request<T>(
    operationName: string,
    options: CallOptions | undefined,
    run: () => Promise<T>,
    plan?: ActivePlan,
    onProgress?: (progress: Progress) => void,
  ): Promise<T> {
    await this.initialize();
    const tag = {};
    if (onProgress) this.progressByTag.set(tag, onProgress);
    const operation: Operation = { plan, rounds: 0, failure: undefined };
    this.operations.push(operation);
    let result: T;
    try {
      result = await operationTag.run(tag, run);
    } catch (error) {
      if (operation.failure) throw operation.failure;
      throw this.translate(error, operationName, options?.timeoutMs ?? this.timeoutMs, tag);
    } finally {
      this.recorder.release(tag);
      this.operations.splice(this.operations.indexOf(operation), 1);
      for (const [token, callback] of this.progressByToken) {
        if (callback === onProgress) this.progressByToken.delete(token);
      }
    }
    if (operation.failure) throw operation.failure;
    return result;
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
          cause: scrubbedCause(error, (text) => redactText(text, this.secrets)),
        });
      }
      const message = redactText(error.message.replace(/^(MCP error -?\d+: )+/, ""), this.secrets);
      return new ProtocolError(
        this.server,
        `${operation} failed with JSON-RPC error ${error.code}: ${message}`,
        {
          code: error.code,
          data: redactValue(error.data, this.secrets),
          cause: scrubbedCause(error, (text) => redactText(text, this.secrets)),
        },
      );
    }
    const message = redactText(
      error instanceof Error ? error.message : String(error),
      this.secrets,
    );
    return new TransportError(this.server, `${operation} failed: ${message}`, {
      stderrTail: this.process?.stderrTail(),
      cause: scrubbedCause(error, (text) => redactText(text, this.secrets)),
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
      const how = describeExit(exit);
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
        // Every call waits on the server: in a session of its own it is scheduled later.
        sameSession: true,
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
          `exited with ${describeExit(exit)}` +
            (this.closing ? " after close" : `; stderr tail:\n${process.stderrTail()}`),
          where,
        ),
      );
      const stdio = new ProcessTransport(process, spec.name, this.kit.killGraceMs);
      stdio.onmalformed = (raw, problem) =>
        this.recorder.recordMalformed("from_server", raw, problem, where);
      inner = stdio;
    } else {
      const auth = resolveHttpAuth(this.server, this.auth, process.env);
      const secrets = new Map(auth.secrets);
      this.secrets = secrets;
      // The runtime scrubs them too: a failure that quotes a result the server echoed them in.
      for (const [value, name] of secrets) this.kit.registerSecret?.(name, value);
      const oauth = this.auth?.oauth;
      let authProvider: TestOAuthProvider | undefined;
      if (oauth) {
        authProvider = new TestOAuthProvider(this.server, oauth, process.env, (value, name) => {
          secrets.set(value, name);
          this.kit.registerSecret?.(name, value);
        });
        await authorizeWithOAuth(authProvider, new URL(this.spec.url), oauth.scope, (text) =>
          redactText(text, secrets),
        );
      }
      this.http = new (sdkHttp().StreamableHTTPClientTransport)(this.spec.url, {
        requestInit: { headers: { ...this.spec.headers, ...auth.headers } },
        ...(authProvider ? { authProvider } : {}),
      });
      inner = this.http;
    }
    const transport = new RecordingTransport(
      inner,
      this.recorder,
      this.server,
      connection,
      () => this.closeCause(),
      {
        outgoing: (message) => this.outgoing(message),
        incoming: (message) => this.incoming(message),
        redact: (message) => redactValue(message, this.secrets),
      },
    );
    this.recorder.event(
      "connected",
      this.spec.kind === "stdio" ? `pid ${this.process?.pid}` : String(this.spec.url),
      where,
    );
    try {
      await this.client.connect(transport, { timeout: this.startTimeoutMs });
    } catch (error) {
      throw await this.startFailure(error);
    }
    return {
      serverInfo: this.client.getServerVersion(),
      capabilities: this.client.getServerCapabilities(),
      instructions: this.client.getInstructions(),
      protocolVersion: this.negotiatedVersion,
      requestedProtocolVersion: this.requestedVersion,
    };
  }

  /** Pins the protocol revision in `initialize` (the SDK always asks for its latest). */
  private outgoing(message: JSONRPCMessage): JSONRPCMessage {
    if ("method" in message && message.method === "initialize" && "id" in message) {
      this.initializeId = message.id;
      return { ...message, params: { ...message.params, protocolVersion: this.requestedVersion } };
    }
    if ("method" in message && "id" in message) {
      const token = (message.params?._meta as { progressToken?: unknown } | undefined)
        ?.progressToken;
      const tag = operationTag.getStore();
      const callback = tag ? this.progressByTag.get(tag) : undefined;
      if (callback && (typeof token === "string" || typeof token === "number")) {
        this.progressByToken.set(token, callback);
      }
    }
    return message;
  }

  /** Notes the negotiated revision and hands notifications to the listeners. */
  private incoming(message: JSONRPCMessage): void {
    if ("method" in message) {
      if ("id" in message) return;
      this.hub.deliver(message.method, redactValue(message.params, this.secrets));
      if (message.method === "notifications/progress") {
        const params = (message.params ?? {}) as Record<string, unknown>;
        const token = params.progressToken;
        const callback =
          typeof token === "string" || typeof token === "number"
            ? this.progressByToken.get(token)
            : undefined;
        if (callback && typeof params.progress === "number") {
          const { progressToken: _token, ...progress } = params;
          void _token;
          callback(progress as Progress);
        }
      }
      return;
    }
    if ("result" in message && message.id === this.initializeId) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === "string") this.negotiatedVersion = version;
    }
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
          ? `the process exited during the MCP handshake (${describeExit(exit)}).`
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
      this.hub.close();
      this.closed = true;
      this.release();
      if (this.connecting) {
        this.kit.directClosed?.({
          server: this.server,
          trace: this.recorder.snapshot(),
          createdAt: this.createdAt,
          finishedAt: Date.now(),
        });
      }
    }
  }
}
