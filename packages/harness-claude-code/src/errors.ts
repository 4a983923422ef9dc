import { agentErrorClasses, AgentProtocolError } from "@jest-m3/core/adapter-kit";

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

/** The harness's name, as selections give it. */
export const HARNESS_NAME = "claude-code";

/** The names Claude Code's messages use. */
export const CLAUDE_NAMES = { agent: "Claude Code", stderr: "claude" };

/**
 * Claude Code's errors: the kit's classes under Claude Code's names (one code per meaning on
 * every agent). `ClaudeCodeExited`: the process exited (or could not be started) while
 * something waited on it (`M3_HARNESS_DIED`); `ClaudeCodeTimeout`: it did not answer a control
 * request in time (`M3_AGENT_TIMEOUT`, retryable; `method` is the request's subtype);
 * `InvalidClaudeCodeOptions`: the selection's `options` for the Claude Code harness are
 * malformed (`M3_INVALID_SELECTION`).
 */
export const {
  Exited: ClaudeCodeExited,
  Timeout: ClaudeCodeTimeout,
  InvalidOptions: InvalidClaudeCodeOptions,
} = agentErrorClasses(
  { ...CLAUDE_NAMES, request: (subtype) => `the control request ${subtype}` },
  {
    exited: "ClaudeCodeExited",
    timeout: "ClaudeCodeTimeout",
    invalidOptions: "InvalidClaudeCodeOptions",
  },
);
