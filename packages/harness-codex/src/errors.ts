import {
  AgentExited,
  AgentProtocolError,
  AgentTimeout,
  InvalidHarnessOptions,
} from "@jest-m3/core/adapter-kit";
import type { RpcErrorValue } from "./protocol.js";

/** `codex app-server` answered a request with a JSON-RPC error (`M3_AGENT_PROTOCOL_ERROR`). */
export class CodexRpcError extends AgentProtocolError {
  constructor(method: string, error: RpcErrorValue) {
    super(`codex app-server answered ${method} with error ${error.code}: ${error.message}`, {
      method,
      rpcCode: error.code,
      data: error.data,
    });
  }
}

/** `codex app-server` exited (or could not be started) while a request was waiting (`M3_HARNESS_DIED`). */
export class AppServerExited extends AgentExited {
  constructor(what: string, exit: string, stderrTail: string) {
    super("codex app-server", what, exit, stderrTail, "codex");
  }
}

/** `codex app-server` did not answer a request in time (`M3_AGENT_TIMEOUT`, retryable). */
export class AppServerTimeout extends AgentTimeout {
  /** The method that was not answered, e.g. `thread/start`. */
  readonly method: string;
  constructor(method: string, timeoutMs: number) {
    super("codex app-server", method, timeoutMs, "Codex");
    this.method = method;
  }
}

/** The selection's `options` for the Codex harness are malformed (`M3_INVALID_SELECTION`). */
export class InvalidCodexOptions extends InvalidHarnessOptions {
  constructor(option: string, problem: string) {
    super("Codex", option, problem);
  }
}
