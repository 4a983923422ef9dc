/**
 * One set of errors for what goes wrong between an adapter and its agent process, with one
 * code per meaning on every agent: an agent that exited is `M3_HARNESS_DIED` (the code a
 * session gives a dead harness), one that did not answer in time is `M3_AGENT_TIMEOUT`
 * (retryable), one that answered a request with an error is `M3_AGENT_PROTOCOL_ERROR`, and
 * malformed harness options are `M3_INVALID_SELECTION` (like every other selection
 * mistake). A session that could not open is {@link HarnessStartError} (`M3_HARNESS_START`).
 * Adapters subclass these to keep their own class names; the codes stay.
 *
 * @example
 * ```ts
 * export class MyAgentExited extends AgentExited {}
 * throw new AgentTimeout("My Agent", "session/new", 30_000, "My Agent");
 * ```
 */
import { M3Error, stderrSection } from "../errors.js";
import type { AgentNames } from "./agent-names.js";

/** The codes of this module, one per meaning. */
export type AgentErrorCode =
  "M3_HARNESS_DIED" | "M3_AGENT_TIMEOUT" | "M3_AGENT_PROTOCOL_ERROR" | "M3_INVALID_SELECTION";

/** The agent process exited (or could not be started) while something waited on it. */
export class AgentExited extends M3Error {
  override readonly code: AgentErrorCode = "M3_HARNESS_DIED";
  /** How it ended, e.g. `code 1` or `signal SIGKILL`. */
  readonly exit: string;
  /** The last lines it wrote to stderr. */
  readonly stderrTail: string;
  /**
   * @param agent - The process's name in the message, e.g. `my-agent serve`.
   * @param what - What was waiting, e.g. `while waiting for session/new`.
   * @param stderrWho - Whose stderr the section names (default `agent`).
   */
  constructor(agent: string, what: string, exit: string, stderrTail: string, stderrWho = agent) {
    super(`${agent} exited (${exit}) ${what}.${stderrSection(stderrTail, stderrWho)}`);
    this.exit = exit;
    this.stderrTail = stderrTail;
  }
}

/** The agent did not answer a request in time. Trying again may succeed. */
export class AgentTimeout extends M3Error {
  override readonly code: AgentErrorCode = "M3_AGENT_TIMEOUT";
  override readonly retryable: boolean = true;
  /** What was asked, e.g. `thread/start` or `the control request mcp_status`. */
  readonly request: string;
  readonly timeoutMs: number;
  /**
   * @param optionOwner - Whose `startupTimeoutMs` option to raise, e.g. `My Agent`
   * (omitted: "the option").
   */
  constructor(agent: string, request: string, timeoutMs: number, optionOwner?: string) {
    super(
      `${agent} did not answer ${request} within ${timeoutMs} ms. It may be stuck starting (a ` +
        `slow machine, a hung MCP server); raise the ${optionOwner ? `${optionOwner} ` : ""}option ` +
        `startupTimeoutMs if it is just slow.`,
    );
    this.request = request;
    this.timeoutMs = timeoutMs;
  }
}

/** The agent answered a request with an error. */
export class AgentProtocolError extends M3Error {
  override readonly code: AgentErrorCode = "M3_AGENT_PROTOCOL_ERROR";
  /** What failed, e.g. `session/new`. */
  readonly method: string;
  /** The protocol's error code (JSON-RPC's), when it has one. */
  readonly rpcCode: number | undefined;
  /** The error's data, if the agent sent any. */
  readonly data: unknown;
  /** @param message - The whole message, in the agent's words. */
  constructor(
    message: string,
    details: { method: string; rpcCode?: number; data?: unknown; cause?: unknown },
  ) {
    super(message, { cause: details.cause });
    this.method = details.method;
    this.rpcCode = details.rpcCode;
    this.data = details.data;
  }
}

/** The selection's `options` for a harness are malformed: names the option and the fix. */
export class InvalidHarnessOptions extends M3Error {
  override readonly code: AgentErrorCode = "M3_INVALID_SELECTION";
  /** The offending option, e.g. `sandbox`. */
  readonly option: string;
  /** @param who - The harness in the message, e.g. `My Agent`. */
  constructor(who: string, option: string, problem: string) {
    super(`${who} harness option "${option}" ${problem}`);
    this.option = option;
  }
}

/** One agent's error classes, made by {@link agentErrorClasses}. */
export interface AgentErrorClasses {
  /** The agent exited (or could not be started) while something waited on it. */
  readonly Exited: new (what: string, exit: string, stderrTail: string) => AgentExited;
  /** The agent did not answer `method` in time; the error keeps `method`. */
  readonly Timeout: new (
    method: string,
    timeoutMs: number,
  ) => AgentTimeout & { readonly method: string };
  /** The selection's `options` for the agent's harness are malformed. */
  readonly InvalidOptions: new (option: string, problem: string) => InvalidHarnessOptions;
}

/**
 * The exited, timeout and options errors of one agent, worded with its `names` (the process
 * in exits and timeouts, the agent in options and in whose `startupTimeoutMs` to raise) and
 * named as `classNames` say, so `error.name` tells the agents apart while the codes stay
 * this module's. `names.request` words a request in a timeout (default: the method).
 *
 * @example
 * ```ts
 * const errors = agentErrorClasses(
 *   { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" },
 *   { exited: "MyAgentExited", timeout: "MyAgentTimeout", invalidOptions: "InvalidMyAgentOptions" },
 * );
 * throw new errors.Timeout("session/new", 30_000); // "my-agent serve did not answer session/new within 30000 ms. ..."
 * ```
 */
export function agentErrorClasses(
  names: AgentNames & { readonly request?: (method: string) => string },
  classNames: {
    readonly exited: string;
    readonly timeout: string;
    readonly invalidOptions: string;
  },
): AgentErrorClasses {
  const agent = names.process ?? names.agent;
  class Exited extends AgentExited {
    constructor(what: string, exit: string, stderrTail: string) {
      super(agent, what, exit, stderrTail, names.stderr);
    }
  }
  class Timeout extends AgentTimeout {
    readonly method: string;
    constructor(method: string, timeoutMs: number) {
      super(agent, names.request?.(method) ?? method, timeoutMs, names.agent);
      this.method = method;
    }
  }
  class InvalidOptions extends InvalidHarnessOptions {
    constructor(option: string, problem: string) {
      super(names.agent, option, problem);
    }
  }
  Object.defineProperty(Exited, "name", { value: classNames.exited });
  Object.defineProperty(Timeout, "name", { value: classNames.timeout });
  Object.defineProperty(InvalidOptions, "name", { value: classNames.invalidOptions });
  return { Exited, Timeout, InvalidOptions };
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
