import {
  errorMessage,
  isJsonObject,
  JsonLinesClient,
  type ManagedProcess,
  type RequestOptions,
} from "@jest-m3/core/adapter-kit";
import { ClaudeCodeExited, ClaudeCodeTimeout, ClaudeControlError } from "./errors.js";
import type {
  HostControlRequest,
  Json,
  JsonObject,
  McpServerStatus,
  StreamMessage,
} from "./protocol.js";

/** Answers a control request Claude Code sent (`can_use_tool`); a throw becomes an error reply. */
export type HostRequestHandler = (request: HostControlRequest) => Promise<Json> | Json;

/**
 * A client of one `claude -p --input-format stream-json --output-format stream-json`
 * process, on the kit's JSON-lines client: user messages and control requests (with their
 * answers) on stdin, every other stdout message to the listeners, and control requests from
 * Claude Code (permission prompts) to the registered handler. When the process exits, every
 * waiting request is rejected with {@link ClaudeCodeExited} carrying the stderr tail.
 */
export class StreamJsonClient extends JsonLinesClient<JsonObject> {
  private readonly messageListeners = new Set<(message: StreamMessage) => void>();
  private hostHandler: HostRequestHandler | undefined;

  constructor(readonly process: ManagedProcess) {
    super(process, {
      // `{"type":"control_response","response":{"subtype":"success"|"error","request_id",...}}`
      answerOf: ({ type, response }) =>
        type === "control_response" &&
        isJsonObject(response) &&
        typeof response.request_id === "string"
          ? { id: response.request_id, answer: response as JsonObject }
          : undefined,
      exited: (what, exit, tail) => new ClaudeCodeExited(what, exit, tail),
      timeout: (subtype, ms) => new ClaudeCodeTimeout(subtype, ms),
    });
    super.onMessage((message) => this.route(message));
  }

  /** Calls `listener` with every message that is not a control message (`onMessage`: all). */
  onStreamMessage(listener: (message: StreamMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /**
   * Sets who answers Claude Code's control requests (permission prompts); `undefined`
   * refuses them all (a warm process between sessions).
   */
  handleHostRequests(handler: HostRequestHandler | undefined): void {
    this.hostHandler = handler;
  }

  /**
   * Sends a control request and resolves with its `response` payload.
   *
   * @throws {@link ClaudeControlError} when Claude Code answers with an error;
   * {@link ClaudeCodeExited} when the process ends first; {@link ClaudeCodeTimeout}.
   */
  async control(
    request: JsonObject & { subtype: string },
    options: RequestOptions = {},
  ): Promise<JsonObject> {
    const { subtype } = request;
    const message = (request_id: string): JsonObject => ({
      type: "control_request",
      request_id,
      request,
    });
    const answer = await this.request(subtype, message, options);
    if (answer.subtype === "error") {
      throw new ClaudeControlError(subtype, String(answer.error ?? "unknown error"));
    }
    return isJsonObject(answer.response) ? (answer.response as JsonObject) : {};
  }

  /** `mcp_status`: the status of every MCP server Claude Code has (see {@link control}). */
  async mcpStatus(options: RequestOptions): Promise<McpServerStatus[]> {
    const { mcpServers } = await this.control({ subtype: "mcp_status" }, options);
    return (Array.isArray(mcpServers) ? mcpServers : []) as unknown as McpServerStatus[];
  }

  /** Sends one user turn; false when Claude Code's stdin is closed. */
  sendUser(text: string): boolean {
    return this.send({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
    });
  }

  private route(message: Record<string, unknown>): void {
    switch (message.type) {
      case "control_request":
        void this.answer(message as unknown as HostControlRequest);
        return;
      case "control_response":
      case "control_cancel_request":
      case "keep_alive":
        return;
      default:
        if (typeof message.type !== "string") return;
        for (const listener of [...this.messageListeners]) listener(message as StreamMessage);
    }
  }

  private async answer(request: HostControlRequest): Promise<void> {
    const reply = (response: JsonObject): void => {
      this.send({ type: "control_response", response });
    };
    const request_id = request.request_id;
    if (!this.hostHandler) {
      const error = `jest-m3 does not handle ${request.request?.subtype}`;
      reply({ subtype: "error", request_id, error });
      return;
    }
    try {
      reply({ subtype: "success", request_id, response: await this.hostHandler(request) });
    } catch (error) {
      reply({ subtype: "error", request_id, error: errorMessage(error) });
    }
  }
}
