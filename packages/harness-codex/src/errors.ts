import { agentErrorClasses, AgentProtocolError } from "@jest-m3/core/adapter-kit";
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

/** The names Codex's messages use. */
export const CODEX_NAMES = { agent: "Codex", process: "codex app-server", stderr: "codex" };

/**
 * Codex's errors: the kit's classes under Codex's names (one code per meaning on every agent).
 * `AppServerExited`: `codex app-server` exited (or could not be started) while a request was
 * waiting (`M3_HARNESS_DIED`); `AppServerTimeout`: it did not answer a request in time
 * (`M3_AGENT_TIMEOUT`, retryable; `method` is the request's); `InvalidCodexOptions`: the
 * selection's `options` for the Codex harness are malformed (`M3_INVALID_SELECTION`).
 */
export const {
  Exited: AppServerExited,
  Timeout: AppServerTimeout,
  InvalidOptions: InvalidCodexOptions,
} = agentErrorClasses(CODEX_NAMES, {
  exited: "AppServerExited",
  timeout: "AppServerTimeout",
  invalidOptions: "InvalidCodexOptions",
});
