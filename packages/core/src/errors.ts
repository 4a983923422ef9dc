/**
 * Errors thrown by jest-m3. Each has a stable `name` to match on, a message that says what
 * to do, and the data a caller needs as properties.
 *
 * @packageDocumentation
 */

/** Base class of every error jest-m3 throws on purpose. */
export class M3Error extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The kit (or something it owns) was used after `close()`. */
export class KitClosed extends M3Error {
  constructor(what: string) {
    super(
      `${what} was called after the MCPTestKit was closed. Create a new kit for new work, or ` +
        `move this call before the kit's \`await using\` block ends.`,
    );
  }
}

/** A server spec (StdioServer or HttpServer) is missing a field or has a wrong one. */
export class InvalidServerSpec extends M3Error {
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
    const tail = details.stderrTail ? `\n--- stderr (last lines) ---\n${details.stderrTail}` : "";
    super(`Server "${server}" failed to start: ${message}${tail}`, { cause: details.cause });
    this.server = server;
    this.stderrTail = details.stderrTail ?? "";
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
  }
}

/** The connection to a server broke: the process exited, the socket closed, a write failed. */
export class TransportError extends M3Error {
  readonly server: string;
  readonly stderrTail: string;
  constructor(
    server: string,
    message: string,
    details: { stderrTail?: string; cause?: unknown } = {},
  ) {
    const tail = details.stderrTail ? `\n--- stderr (last lines) ---\n${details.stderrTail}` : "";
    super(`Server "${server}": ${message}${tail}`, { cause: details.cause });
    this.server = server;
    this.stderrTail = details.stderrTail ?? "";
  }
}

/** The server answered with a JSON-RPC error, or with something that is not valid MCP. */
export class ProtocolError extends M3Error {
  readonly server: string;
  /** The JSON-RPC error code, when the server sent one. */
  readonly code: number | undefined;
  /** The JSON-RPC error data, when the server sent any. */
  readonly data: unknown;
  constructor(
    server: string,
    message: string,
    details: { code?: number; data?: unknown; cause?: unknown } = {},
  ) {
    super(`Server "${server}": ${message}`, { cause: details.cause });
    this.server = server;
    this.code = details.code;
    this.data = details.data;
  }
}

/** An operation took longer than its timeout. The operation was cancelled. */
export class OperationTimeout extends M3Error {
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
  constructor(owner: string) {
    super(
      `${owner}.finalTrace is only available after ${owner}.close() (or after the kit closed). ` +
        `Use .trace for the live view, or close first.`,
    );
  }
}
