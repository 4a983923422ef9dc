import { M3Error } from "@jest-m3/core/harness";

/** The agent answered an ACP request with a JSON-RPC error. */
export class AcpRpcError extends M3Error {
  override readonly code = "M3_ACP_RPC";
  /** The method that failed, e.g. `session/new`. */
  readonly method: string;
  /** The JSON-RPC error code. */
  readonly rpcCode: number;
  /** The error's data, if the agent sent any. */
  readonly data: unknown;
  constructor(agent: string, method: string, code: number, message: string, data?: unknown) {
    const detail =
      data === undefined || data === null ? "" : ` ${JSON.stringify(data).slice(0, 500)}`;
    super(`${agent} answered ${method} with error ${code}: ${message}${detail}`);
    this.method = method;
    this.rpcCode = code;
    this.data = data;
  }
}

/** The agent exited (or could not be started) while a request was waiting. */
export class AgentExited extends M3Error {
  override readonly code = "M3_HARNESS_DIED";
  /** How it ended, e.g. `code 1` or `signal SIGKILL`. */
  readonly exit: string;
  /** The last lines it wrote to stderr. */
  readonly stderrTail: string;
  constructor(agent: string, what: string, exit: string, stderrTail: string) {
    const tail = stderrTail ? `\n--- ${agent} stderr (last lines) ---\n${stderrTail}` : "";
    super(`${agent} exited (${exit}) ${what}.${tail}`);
    this.exit = exit;
    this.stderrTail = stderrTail;
  }
}

/** The agent did not answer a request in time. */
export class AgentTimeout extends M3Error {
  override readonly code = "M3_OPERATION_TIMEOUT";
  readonly method: string;
  readonly timeoutMs: number;
  constructor(agent: string, method: string, timeoutMs: number) {
    super(
      `${agent} did not answer ${method} within ${timeoutMs} ms. It may be stuck starting (a slow ` +
        `machine, a hung MCP server); raise the option startupTimeoutMs if it is just slow.`,
    );
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The selection's `options` for an ACP harness are malformed. */
export class InvalidAcpOptions extends M3Error {
  override readonly code = "M3_INVALID_SELECTION";
  /** The harness kind (`acp`, `gemini`, `opencode`). */
  readonly harness: string;
  /** The offending option, e.g. `command`. */
  readonly option: string;
  constructor(harness: string, option: string, problem: string) {
    super(`${harness} harness option "${option}" ${problem}`);
    this.harness = harness;
    this.option = option;
  }
}

/**
 * Two MCP tools of a session would have one name in the agent (its flattening rule merges
 * them), so a call of one could be credited to the other: refused before the agent starts.
 */
export class ToolNameCollision extends M3Error {
  override readonly code = "M3_INVALID_SESSION_OPTIONS";
  /** The agent, e.g. `OpenCode`. */
  readonly agent: string;
  /** The servers or `server:tool` names that collide. */
  readonly names: readonly string[];
  constructor(agent: string, problem: string, names: readonly string[]) {
    super(`The session's tool names collide in ${agent}: ${problem}`);
    this.agent = agent;
    this.names = names;
  }
}
