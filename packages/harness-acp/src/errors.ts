import {
  AgentExited as KitAgentExited,
  AgentProtocolError,
  AgentTimeout as KitAgentTimeout,
  InvalidHarnessOptions,
} from "@jest-m3/core/adapter-kit";

/**
 * The agent answered an ACP request with a JSON-RPC error (`M3_AGENT_PROTOCOL_ERROR`, the
 * code every harness gives it).
 */
export class AcpRpcError extends AgentProtocolError {
  constructor(agent: string, method: string, code: number, message: string, data?: unknown) {
    const detail =
      data === undefined || data === null ? "" : ` ${JSON.stringify(data).slice(0, 500)}`;
    super(`${agent} answered ${method} with error ${code}: ${message}${detail}`, {
      method,
      rpcCode: code,
      data,
    });
  }
}

/** The agent exited (or could not be started) while a request was waiting (`M3_HARNESS_DIED`). */
export class AgentExited extends KitAgentExited {}

/** The agent did not answer a request in time (`M3_AGENT_TIMEOUT`, retryable). */
export class AgentTimeout extends KitAgentTimeout {
  /** The ACP method that was not answered, e.g. `session/new`. */
  readonly method: string;
  constructor(agent: string, method: string, timeoutMs: number) {
    super(agent, method, timeoutMs);
    this.method = method;
  }
}

/** The selection's `options` for an ACP harness are malformed (`M3_INVALID_SELECTION`). */
export class InvalidAcpOptions extends InvalidHarnessOptions {
  /** The harness kind (`acp`, `gemini`, `opencode`). */
  readonly harness: string;
  constructor(harness: string, option: string, problem: string) {
    super(harness, option, problem);
    this.harness = harness;
  }
}

/**
 * Two MCP tools of a session would have one name in the agent (its flattening rule merges
 * them), so a call of one could be credited to the other: refused before the agent starts.
 * The adapter kit's class, so every agent refuses with the same one.
 */
export { ToolNameCollision } from "@jest-m3/core/adapter-kit";
