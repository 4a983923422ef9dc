/**
 * The Pi harness's errors: the adapter kit's classes (one code per meaning on every agent)
 * under Pi's names.
 */
import {
  AgentExited,
  AgentProtocolError,
  AgentTimeout,
  InvalidHarnessOptions,
} from "@jest-m3/core/adapter-kit";

/** The selection's `options` for the Pi harness are malformed (`M3_INVALID_SELECTION`). */
export class InvalidPiOptions extends InvalidHarnessOptions {
  constructor(option: string, problem: string) {
    super("Pi", option, problem);
  }
}

/** Pi answered an RPC command with `success: false` (`M3_AGENT_PROTOCOL_ERROR`). */
export class PiCommandError extends AgentProtocolError {
  constructor(command: string, error: string) {
    super(`Pi answered the RPC command ${command} with an error: ${error}`, { method: command });
  }
}

/** Pi exited (or could not be started) while something waited on it (`M3_HARNESS_DIED`). */
export class PiExited extends AgentExited {
  constructor(what: string, exit: string, stderrTail: string) {
    super("Pi", what, exit, stderrTail, "pi");
  }
}

/** Pi did not answer an RPC command in time (`M3_AGENT_TIMEOUT`, retryable). */
export class PiTimeout extends AgentTimeout {
  constructor(command: string, timeoutMs: number) {
    super("Pi", `the RPC command ${command}`, timeoutMs, "Pi");
  }
}
