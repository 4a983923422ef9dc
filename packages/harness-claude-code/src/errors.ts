import {
  AgentExited,
  AgentProtocolError,
  AgentTimeout,
  InvalidHarnessOptions,
} from "@jest-m3/core/adapter-kit";

/** Claude Code answered a control request with an error (`M3_AGENT_PROTOCOL_ERROR`). */
export class ClaudeControlError extends AgentProtocolError {
  /** The control request's subtype, e.g. `mcp_set_servers`. */
  readonly subtype: string;
  constructor(subtype: string, error: string) {
    super(`Claude Code answered the control request ${subtype} with an error: ${error}`, {
      method: subtype,
    });
    this.subtype = subtype;
  }
}

/** The Claude Code process exited (or could not be started) while something waited on it (`M3_HARNESS_DIED`). */
export class ClaudeCodeExited extends AgentExited {
  constructor(what: string, exit: string, stderrTail: string) {
    super("Claude Code", what, exit, stderrTail, "claude");
  }
}

/** Claude Code did not answer a control request in time (`M3_AGENT_TIMEOUT`, retryable). */
export class ClaudeCodeTimeout extends AgentTimeout {
  /** The control request's subtype. */
  readonly subtype: string;
  constructor(subtype: string, timeoutMs: number) {
    super("Claude Code", `the control request ${subtype}`, timeoutMs, "Claude Code");
    this.subtype = subtype;
  }
}

/** The selection's `options` for the Claude Code harness are malformed (`M3_INVALID_SELECTION`). */
export class InvalidClaudeCodeOptions extends InvalidHarnessOptions {
  constructor(option: string, problem: string) {
    super("Claude Code", option, problem);
  }
}
