import { M3Error } from "@jest-m3/core/harness";

/** Claude Code answered a control request with an error. */
export class ClaudeControlError extends M3Error {
  /** The control request's subtype, e.g. `mcp_set_servers`. */
  readonly subtype: string;
  constructor(subtype: string, error: string) {
    super(`Claude Code answered the control request ${subtype} with an error: ${error}`);
    this.subtype = subtype;
  }
}

/** The Claude Code process exited (or could not be started) while something waited on it. */
export class ClaudeCodeExited extends M3Error {
  /** How it ended, e.g. `code 1` or `signal SIGKILL`. */
  readonly exit: string;
  /** The last lines it wrote to stderr. */
  readonly stderrTail: string;
  constructor(what: string, exit: string, stderrTail: string) {
    const tail = stderrTail ? `\n--- claude stderr (last lines) ---\n${stderrTail}` : "";
    super(`Claude Code exited (${exit}) ${what}.${tail}`);
    this.exit = exit;
    this.stderrTail = stderrTail;
  }
}

/** Claude Code did not answer a control request in time. */
export class ClaudeCodeTimeout extends M3Error {
  /** The control request's subtype. */
  readonly subtype: string;
  readonly timeoutMs: number;
  constructor(subtype: string, timeoutMs: number) {
    super(
      `Claude Code did not answer the control request ${subtype} within ${timeoutMs} ms. It may be ` +
        `stuck starting (a slow machine, a hung MCP server); raise the Claude Code option startupTimeoutMs if it is just slow.`,
    );
    this.subtype = subtype;
    this.timeoutMs = timeoutMs;
  }
}

/** The selection's `options` for the Claude Code harness are malformed. */
export class InvalidClaudeCodeOptions extends M3Error {
  /** The offending option, e.g. `builtinTools`. */
  readonly option: string;
  constructor(option: string, problem: string) {
    super(`Claude Code harness option "${option}" ${problem}`);
    this.option = option;
  }
}
