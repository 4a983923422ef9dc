import { M3Error, stderrSection } from "@jest-m3/core/harness";
import type { Json, RpcErrorValue } from "./protocol.js";

/** `codex app-server` answered a request with a JSON-RPC error. */
export class CodexRpcError extends M3Error {
  override readonly code = "M3_CODEX_RPC";
  /** The method that failed, e.g. `thread/start`. */
  readonly method: string;
  /** The JSON-RPC error code. */
  readonly rpcCode: number;
  /** The error's data, if Codex sent any. */
  readonly data: Json | undefined;
  constructor(method: string, error: RpcErrorValue) {
    super(`codex app-server answered ${method} with error ${error.code}: ${error.message}`);
    this.method = method;
    this.rpcCode = error.code;
    this.data = error.data;
  }
}

/** `codex app-server` exited (or could not be started) while a request was waiting. */
export class AppServerExited extends M3Error {
  override readonly code = "M3_CODEX_EXITED";
  /** How it ended, e.g. `code 1` or `signal SIGKILL`. */
  readonly exit: string;
  /** The last lines it wrote to stderr. */
  readonly stderrTail: string;
  constructor(what: string, exit: string, stderrTail: string) {
    super(`codex app-server exited (${exit}) ${what}.${stderrSection(stderrTail, "codex")}`);
    this.exit = exit;
    this.stderrTail = stderrTail;
  }
}

/** `codex app-server` did not answer a request in time. */
export class AppServerTimeout extends M3Error {
  override readonly code = "M3_CODEX_TIMEOUT";
  override readonly retryable = true;
  readonly method: string;
  readonly timeoutMs: number;
  constructor(method: string, timeoutMs: number) {
    super(
      `codex app-server did not answer ${method} within ${timeoutMs} ms. It may be stuck ` +
        `starting (a slow machine, a hung MCP server); raise the Codex option startupTimeoutMs if it is just slow.`,
    );
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The selection's `options` for the Codex harness are malformed. */
export class InvalidCodexOptions extends M3Error {
  override readonly code = "M3_INVALID_HARNESS_OPTIONS";
  /** The offending option, e.g. `sandbox`. */
  readonly option: string;
  constructor(option: string, problem: string) {
    super(`Codex harness option "${option}" ${problem}`);
    this.option = option;
  }
}
