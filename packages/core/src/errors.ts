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

/** A harness is not ready for what the session needs. Nothing was started. */
export class HarnessNotReady extends M3Error {
  /** The harness's name. */
  readonly harness: string;
  /** Every reason, one per capability that is not ready (`capability: reason`). */
  readonly reasons: readonly string[];
  constructor(harness: string, reasons: readonly string[]) {
    super(
      `Harness "${harness}" is not ready for this session:\n` +
        reasons.map((reason) => `  - ${reason}`).join("\n") +
        `\nSee docs/troubleshooting.md for what each reason means and how to fix it.`,
    );
    this.harness = harness;
    this.reasons = reasons;
  }
}

/** An agent selection is malformed: an unknown key, an empty model list, a missing credential. */
export class InvalidSelection extends M3Error {
  /** The offending field, e.g. `models` or `credentialEnv.OPENAI_API_KEY`. */
  readonly field: string;
  constructor(index: number, field: string, problem: string) {
    super(`Agent selection #${index + 1}: field "${field}" ${problem}`);
    this.field = field;
  }
}

/** No adapter is registered or installed for a harness name. */
export class UnknownHarness extends M3Error {
  readonly harness: string;
  /** The harnesses that are registered on the kit. */
  readonly registered: readonly string[];
  /** The package names that were tried. */
  readonly tried: readonly string[];
  constructor(
    harness: string,
    registered: readonly string[],
    tried: readonly string[],
    details: { hint?: string } = {},
  ) {
    super(
      details.hint ??
        `No harness adapter named "${harness}". Registered: ${registered.length ? registered.join(", ") : "(none)"}. ` +
          `Tried the packages ${tried.join(" and ")}: none is installed. Install one ` +
          `(npm install --save-dev ${tried[0]}) or register an adapter with new MCPTestKit({ harnesses: [...] }).`,
    );
    this.harness = harness;
    this.registered = registered;
    this.tried = tried;
  }
}

/** `send()` was called while a turn is still running. */
export class SessionBusy extends M3Error {
  constructor(turn: number) {
    super(
      `The session is running turn ${turn}; await its send() before sending the next turn (one turn at a time).`,
    );
  }
}

/** `result` was read before the session finished. */
export class SessionStillOpen extends M3Error {
  constructor() {
    super(
      "The session is still open: its result is final only after close(). Close it (or let `await using` " +
        "end its block) before reading session.result.",
    );
  }
}

/** The session is closed or finished; it takes no more turns. */
export class SessionClosed extends M3Error {
  constructor(what: string, state: string) {
    super(`${what} was called on a session that is ${state}. Open a new session for more turns.`);
  }
}

/** A tool-call query is malformed or ambiguous. */
export class QueryError extends M3Error {}
