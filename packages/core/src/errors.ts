/**
 * Errors thrown by jest-m3: one hierarchy under {@link M3Error}. Each has a stable `code`
 * to switch on (`M3_KIT_CLOSED`, ...), a message that says what to do, and the data a
 * caller needs as properties.
 *
 * @packageDocumentation
 */

/**
 * An error as results carry it: plain data, safe to serialize into reports.
 *
 * @example
 * ```ts
 * if (turn.error?.code === "M3_TURN_TIMEOUT") console.log(turn.error.message);
 * ```
 */
export interface ResultError {
  /** A stable code (see {@link ErrorCode}). */
  readonly code: string;
  readonly message: string;
  /** True when trying again may succeed (a timeout, a provider's 429), false for a mistake. */
  readonly retryable: boolean;
  /** Data for the code (the harness's exit, the tools that violated the policy, ...). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Every code an {@link M3Error} or a {@link ResultError} of core can carry. */
export type ErrorCode =
  | "M3_ERROR"
  | "M3_KIT_CLOSED"
  | "M3_INVALID_ARGUMENT"
  | "M3_INVALID_SERVER_SPEC"
  | "M3_INVALID_TOOL_POLICY"
  | "M3_INVALID_SELECTION"
  | "M3_INVALID_SESSION_OPTIONS"
  | "M3_INVALID_HARNESS"
  | "M3_UNKNOWN_HARNESS"
  | "M3_SERVER_START"
  | "M3_TRANSPORT"
  | "M3_PROTOCOL"
  | "M3_OPERATION_TIMEOUT"
  | "M3_CLIENT_CLOSED"
  | "M3_TRACE_STILL_OPEN"
  | "M3_HARNESS_NOT_READY"
  | "M3_HARNESS_START"
  | "M3_HARNESS_OPEN_TIMEOUT"
  | "M3_SESSION_BUSY"
  | "M3_SESSION_STILL_OPEN"
  | "M3_SESSION_CLOSED"
  | "M3_SESSION_CANCELLED"
  | "M3_TURN_TIMEOUT"
  | "M3_TURN_CANCELLED"
  | "M3_TURN_FAILED"
  | "M3_HARNESS_DIED"
  | "M3_HARNESS_CLOSE"
  | "M3_TOOL_POLICY_VIOLATION"
  | "M3_QUERY"
  | "M3_CONFORMANCE"
  | "M3_SCHEMA_VALIDATION"
  | "M3_REPEATING_CURSOR"
  | "M3_NOTIFICATION_TIMEOUT"
  | "M3_ELICITATION_UNEXPECTED"
  | "M3_ELICITATION_ROUND_LIMIT"
  | "M3_MISSING_SECRET"
  | "M3_RECORDING"
  | "M3_WORKSPACE"
  | "M3_WORKSPACE_WRITTEN";

/** Base class of every error jest-m3 throws on purpose. */
export class M3Error extends Error {
  /** A stable code to switch on; subclasses set their own. */
  readonly code: string = "M3_ERROR";
  /** True when trying again may succeed. */
  readonly retryable: boolean = false;
  constructor(message: string, options?: { cause?: unknown; code?: string; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options?.code) this.code = options.code;
    if (options?.retryable !== undefined) this.retryable = options.retryable;
  }

  /** This error as results carry it. */
  toResultError(details?: Readonly<Record<string, unknown>>): ResultError {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(details ? { details } : {}),
    };
  }
}

/**
 * `cause` made safe to attach to an error the kit throws: an Error is copied (same class)
 * with every string it holds, its message and stack included, passed through `scrub`, and
 * its own cause likewise, however deep; other values come back as they are. The kit
 * scrubs its messages of a secret a server echoed; the cause it keeps must not hold it.
 *
 * @example
 * ```ts
 * throw new M3Error("call failed", { cause: scrubbedCause(error, (text) => text.replaceAll(key, "[redacted]")) });
 * ```
 */
export function scrubbedCause(cause: unknown, scrub: (text: string) => string): unknown {
  if (!(cause instanceof Error)) return cause;
  const copy = Object.create(Object.getPrototypeOf(cause) as object) as Record<string, unknown>;
  const source = cause as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.getOwnPropertyNames(cause), "message", "stack", "cause"])) {
    const value = source[key];
    if (value === undefined) continue;
    const clean =
      key === "cause"
        ? scrubbedCause(value, scrub)
        : typeof value === "string"
          ? scrub(value)
          : typeof value === "object" && value !== null
            ? scrubJson(value, scrub)
            : value;
    Object.defineProperty(copy, key, { value: clean, writable: true, configurable: true });
  }
  return copy;
}

/** A JSON-like value with `scrub` applied to each string (a protocol error's `data`). */
function scrubJson(value: object, scrub: (text: string) => string): unknown {
  try {
    return JSON.parse(scrub(JSON.stringify(value))) as unknown;
  } catch {
    return value;
  }
}

/** A {@link ResultError} from any thrown value: M3Errors keep their code, others get `fallback`. */
export function toResultError(error: unknown, fallback: ErrorCode = "M3_ERROR"): ResultError {
  if (error instanceof M3Error) return error.toResultError();
  return {
    code: fallback,
    message: error instanceof Error ? error.message : String(error),
    retryable: false,
  };
}

/** A {@link ResultError} made on the spot. */
export function resultError(
  code: ErrorCode,
  message: string,
  options: { retryable?: boolean; details?: Readonly<Record<string, unknown>> } = {},
): ResultError {
  return {
    code,
    message,
    retryable: options.retryable ?? false,
    ...(options.details ? { details: options.details } : {}),
  };
}

/**
 * The one way a process's last stderr lines are shown in a message.
 *
 * @param who - Whose stderr, e.g. `codex`, `server "shipping"`; omitted for the subject's own.
 */
export function stderrSection(tail: string | undefined, who?: string): string {
  if (!tail) return "";
  return `\n--- ${who ? `${who} ` : ""}stderr (last lines) ---\n${tail}`;
}

/** The one way a process exit is described: `code 1`, `signal SIGKILL`. */
export function describeExit(exit: {
  readonly code?: number | null;
  readonly signal?: string | null;
}): string {
  if (exit.signal) return `signal ${exit.signal}`;
  return `code ${exit.code ?? "unknown"}`;
}

/** A test used an API wrongly (a wrong type, a missing argument): says which and how. */
export class InvalidArgument extends M3Error {
  override readonly code = "M3_INVALID_ARGUMENT";
}

/** The kit (or something it owns) was used after `close()`. */
export class KitClosed extends M3Error {
  override readonly code = "M3_KIT_CLOSED";
  constructor(what: string) {
    super(
      `${what} was called after the MCPTestKit was closed. Create a new kit for new work, or ` +
        `move this call before the kit's \`await using\` block ends.`,
    );
  }
}

/** A server spec (StdioServer or HttpServer) is missing a field or has a wrong one. */
export class InvalidServerSpec extends M3Error {
  override readonly code = "M3_INVALID_SERVER_SPEC";
  /** The server's name, or a placeholder when the name itself is the problem. */
  readonly server: string;
  /** The offending field, e.g. `command` or `args[2]`. */
  readonly field: string;
  constructor(server: string, field: string, problem: string) {
    super(`Server ${server}: field "${field}" ${problem}`);
    this.server = server;
    this.field = field;
  }
}

/** A server could not be started or did not complete the MCP handshake. */
export class ServerStartError extends M3Error {
  override readonly code = "M3_SERVER_START";
  readonly server: string;
  /** The last lines the server wrote to stderr (bounded), if any. */
  readonly stderrTail: string;
  /** The exit code, when the process exited. */
  readonly exitCode: number | null;
  /** The signal that ended the process, when one did. */
  readonly signal: string | null;
  constructor(
    server: string,
    message: string,
    details: {
      stderrTail?: string;
      exitCode?: number | null;
      signal?: string | null;
      cause?: unknown;
    } = {},
  ) {
    super(`Server "${server}" failed to start: ${message}${stderrSection(details.stderrTail)}`, {
      cause: details.cause,
    });
    this.server = server;
    this.stderrTail = details.stderrTail ?? "";
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
  }
}

/** The connection to a server broke: the process exited, the socket closed, a write failed. */
export class TransportError extends M3Error {
  override readonly code = "M3_TRANSPORT";
  readonly server: string;
  readonly stderrTail: string;
  constructor(
    server: string,
    message: string,
    details: { stderrTail?: string; cause?: unknown } = {},
  ) {
    super(`Server "${server}": ${message}${stderrSection(details.stderrTail)}`, {
      cause: details.cause,
    });
    this.server = server;
    this.stderrTail = details.stderrTail ?? "";
  }
}

/** The server answered with a JSON-RPC error, or with something that is not valid MCP. */
export class ProtocolError extends M3Error {
  override readonly code = "M3_PROTOCOL";
  readonly server: string;
  /** The JSON-RPC error code, when the server sent one. */
  readonly rpcCode: number | undefined;
  /** The JSON-RPC error data, when the server sent any. */
  readonly data: unknown;
  constructor(
    server: string,
    message: string,
    details: { code?: number; data?: unknown; cause?: unknown } = {},
  ) {
    super(`Server "${server}": ${message}`, { cause: details.cause });
    this.server = server;
    this.rpcCode = details.code;
    this.data = details.data;
  }
}

/** An operation took longer than its timeout. The operation was cancelled. */
export class OperationTimeout extends M3Error {
  override readonly code = "M3_OPERATION_TIMEOUT";
  override readonly retryable = true;
  readonly server: string;
  readonly operation: string;
  readonly timeoutMs: number;
  constructor(server: string, operation: string, timeoutMs: number) {
    super(
      `Server "${server}": ${operation} did not finish within ${timeoutMs} ms and was cancelled. ` +
        `Raise the timeout (the \`timeoutMs\` option) if the server is just slow.`,
    );
    this.server = server;
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/** A trace was read as final before its owner was closed. */
export class TraceStillOpen extends M3Error {
  override readonly code = "M3_TRACE_STILL_OPEN";
  constructor(owner: string) {
    super(
      `${owner}.finalTrace is only available after ${owner}.close() (or after the kit closed). ` +
        `Use .trace for the live view, or close first.`,
    );
  }
}

/** The readiness reasons, explained: users have the guide online, not the repository's docs folder. */
const TROUBLESHOOTING_READINESS =
  "https://github.com/jest-m3/jest-m3/blob/main/docs/troubleshooting.md#readiness";

/** A harness is not ready for what the session needs. Nothing was started. */
export class HarnessNotReady extends M3Error {
  override readonly code = "M3_HARNESS_NOT_READY";
  /** The harness's name. */
  readonly harness: string;
  /** Every reason, one per capability that is not ready (`capability: reason`). */
  readonly reasons: readonly string[];
  constructor(harness: string, reasons: readonly string[]) {
    super(
      `Harness "${harness}" is not ready for this session:\n` +
        reasons.map((reason) => `  - ${reason}`).join("\n") +
        `\nWhat each reason means and how to fix it: "Readiness" in the troubleshooting guide, ${TROUBLESHOOTING_READINESS}`,
    );
    this.harness = harness;
    this.reasons = reasons;
  }
}

/** An agent selection is malformed: an unknown key, an empty model list, a missing credential. */
export class InvalidSelection extends M3Error {
  override readonly code = "M3_INVALID_SELECTION";
  /** The offending field, e.g. `models` or `credentialEnv.OPENAI_API_KEY`. */
  readonly field: string;
  constructor(index: number, field: string, problem: string) {
    super(`Agent selection #${index + 1}: field "${field}" ${problem}`);
    this.field = field;
  }
}

/** No adapter is registered or installed for a harness name. */
export class UnknownHarness extends M3Error {
  override readonly code = "M3_UNKNOWN_HARNESS";
  readonly harness: string;
  /** The harnesses that are registered on the kit. */
  readonly registered: readonly string[];
  /** The package names that were tried. */
  readonly tried: readonly string[];
  /** Every harness name the project can use (registered, or declared by installed packages). */
  readonly available: readonly string[];
  /** The available name closest to {@link harness}, when one is close. */
  readonly suggestion: string | undefined;
  constructor(
    harness: string,
    registered: readonly string[],
    tried: readonly string[],
    details: { hint?: string; available?: readonly string[]; suggestion?: string } = {},
  ) {
    const available = details.available ?? registered;
    super(
      details.hint ??
        (details.suggestion !== undefined
          ? `No harness adapter named "${harness}". Did you mean "${details.suggestion}"? `
          : `No harness adapter named "${harness}". `) +
          `Available in this project: ${available.length ? available.join(", ") : "(none)"} ` +
          `(registered on the kit: ${registered.length ? registered.join(", ") : "(none)"}). ` +
          `Looked for the packages ${tried.join(" and ")}: none is installed. Fix the name, ` +
          `install the harness's package (the harnesses' documentation names each one), or ` +
          `register an adapter with new MCPTestKit({ harnesses: [...] }).`,
    );
    this.harness = harness;
    this.registered = registered;
    this.tried = tried;
    this.available = available;
    this.suggestion = details.suggestion;
  }
}

/** `send()` was called while a turn is still running. */
export class SessionBusy extends M3Error {
  override readonly code = "M3_SESSION_BUSY";
  constructor(turn: number) {
    super(
      `The session is running turn ${turn}; await its send() before sending the next turn (one turn at a time).`,
    );
  }
}

/** `result` was read before the session finished. */
export class SessionStillOpen extends M3Error {
  override readonly code = "M3_SESSION_STILL_OPEN";
  constructor() {
    super(
      "The session is still open: its result is final only after close(). Close it (or let `await using` " +
        "end its block) before reading session.result.",
    );
  }
}

/** The session is closed or finished; it takes no more turns. */
export class SessionClosed extends M3Error {
  override readonly code = "M3_SESSION_CLOSED";
  constructor(what: string, state: string, options: { cause?: unknown } = {}) {
    super(
      `${what} was called on a session that is ${state}. Open a new session for more turns.`,
      options,
    );
  }
}

/** A tool-call query is malformed or ambiguous. */
export class QueryError extends M3Error {
  override readonly code = "M3_QUERY";
}

/** A session option is unknown or has a wrong value. Nothing was started. */
export class InvalidSessionOptions extends M3Error {
  override readonly code = "M3_INVALID_SESSION_OPTIONS";
  /** The offending option, e.g. `timeout`. */
  readonly option: string;
  constructor(option: string, problem: string) {
    super(`Session option "${option}" ${problem}`);
    this.option = option;
  }
}

/** A harness definition is malformed (see `defineHarness`). */
export class InvalidHarness extends M3Error {
  override readonly code = "M3_INVALID_HARNESS";
}

/** A direct client was used after its `close()`. */
export class ClientClosed extends M3Error {
  override readonly code = "M3_CLIENT_CLOSED";
  constructor(server: string, what: string) {
    super(
      `${what} was called on the direct client of server "${server}" after client.close(). ` +
        `Create a new client with kit.direct() for more calls.`,
    );
  }
}

/** One place where a value does not match a JSON Schema: a path and what is wrong there. */
export interface SchemaIssue {
  /** Where, as a JSON Pointer into the value (`/weight_kg`, `/items/0`); `""` is the root. */
  readonly path: string;
  /** What is wrong, e.g. `must be number`. */
  readonly message: string;
}

/**
 * Opt-in schema validation failed: a tool's arguments do not match its `inputSchema`
 * (nothing was sent), or its `structuredContent` does not match its `outputSchema`.
 */
export class SchemaValidationError extends M3Error {
  override readonly code = "M3_SCHEMA_VALIDATION";
  readonly server: string;
  readonly tool: string;
  /** Which schema the value failed. */
  readonly schema: "inputSchema" | "outputSchema";
  /** Every problem, one per path. */
  readonly issues: readonly SchemaIssue[];
  constructor(
    server: string,
    tool: string,
    schema: "inputSchema" | "outputSchema",
    issues: readonly SchemaIssue[],
  ) {
    const what = schema === "inputSchema" ? "arguments" : "structuredContent";
    const fix =
      schema === "inputSchema"
        ? "Nothing was sent. Fix the arguments, or pass { validate: false } to send them anyway."
        : "The server's result does not keep its own outputSchema: fix the server (or the schema).";
    super(
      `Server "${server}": tool "${tool}": ${what} do not match its ${schema}:\n` +
        issues.map((issue) => `  - ${what}${issue.path}: ${issue.message}`).join("\n") +
        `\n${fix}`,
    );
    this.server = server;
    this.tool = tool;
    this.schema = schema;
    this.issues = issues;
  }
}

/** A server's paging sent a cursor it had sent before: following it would never end. */
export class RepeatingCursor extends M3Error {
  override readonly code = "M3_REPEATING_CURSOR";
  readonly server: string;
  readonly method: string;
  readonly cursor: string;
  constructor(server: string, method: string, cursor: string, pages: number) {
    super(
      `Server "${server}": ${method} returned the cursor ${JSON.stringify(cursor)} again after ${pages} ` +
        `page(s); following it would loop forever. The server must return a new cursor per page ` +
        `(or none on the last page). Read page by page with the *Page() methods to inspect it.`,
    );
    this.server = server;
    this.method = method;
    this.cursor = cursor;
  }
}

/** No notification the test waited for arrived in time. */
export class NotificationTimeout extends M3Error {
  override readonly code = "M3_NOTIFICATION_TIMEOUT";
  override readonly retryable = true;
  readonly server: string;
  readonly timeoutMs: number;
  constructor(server: string, waitedFor: string, timeoutMs: number, seen: readonly string[]) {
    super(
      `Server "${server}": no ${waitedFor} arrived within ${timeoutMs} ms. ` +
        (seen.length
          ? `Notifications seen meanwhile: ${seen.join(", ")}.`
          : "No notification arrived at all.") +
        ` Raise timeoutMs if the server is slow, or check that the client subscribed first.`,
    );
    this.server = server;
    this.timeoutMs = timeoutMs;
  }
}

/** The server asked for an elicitation the test's plan did not expect. */
export class ElicitationUnexpected extends M3Error {
  override readonly code = "M3_ELICITATION_UNEXPECTED";
  readonly server: string;
  /** The elicitation's message. */
  readonly elicitationMessage: string;
  constructor(server: string, message: string, mode: string, rules: number) {
    super(
      `Server "${server}" asked for a ${mode} elicitation (${JSON.stringify(message)}) that no rule of the ` +
        `test's elicitation plan (${rules} rule(s)) matches, or whose rules were used up. The server was ` +
        `answered with an error. Add a rule for it ({ when: { message: ... }, answer: ... }).`,
    );
    this.server = server;
    this.elicitationMessage = message;
  }
}

/** An operation went on asking for elicitations past the plan's round limit. */
export class ElicitationRoundLimit extends M3Error {
  override readonly code = "M3_ELICITATION_ROUND_LIMIT";
  readonly server: string;
  readonly limit: number;
  constructor(server: string, limit: number) {
    super(
      `Server "${server}" asked for more than ${limit} elicitation(s) in one operation (the plan's ` +
        `roundLimit); the extra round was answered with an error. Raise roundLimit if that many are expected.`,
    );
    this.server = server;
    this.limit = limit;
  }
}

/** A secret reference names an environment variable that is not set (or empty). */
export class MissingSecret extends M3Error {
  override readonly code = "M3_MISSING_SECRET";
  /** The variable's name (never its value). */
  readonly variable: string;
  constructor(server: string, variable: string, usedFor: string) {
    super(
      `Server "${server}": ${usedFor} comes from the environment variable ${variable}, which is not set ` +
        `(or empty). Set it before the test runs; nothing was sent.`,
    );
    this.variable = variable;
  }
}

/** A recording of MCP traffic cannot be read, written or made. */
export class RecordingError extends M3Error {
  override readonly code = "M3_RECORDING";
}
