import {
  AgentProcess,
  isJsonObject,
  JsonLines,
  PendingRequests,
  type ManagedProcess,
  type RequestOptions,
} from "@jest-m3/core/adapter-kit";
import { ClaudeCodeExited, ClaudeCodeTimeout, ClaudeControlError } from "./errors.js";
import type { HostControlRequest, Json, JsonObject, StreamMessage } from "./protocol.js";

/** Answers a control request Claude Code sent (`can_use_tool`); a throw becomes an error reply. */
export type HostRequestHandler = (request: HostControlRequest) => Promise<Json> | Json;

/** Options of {@link StreamJsonClient.control}. */
export type ControlOptions = RequestOptions;

/**
 * A client of one `claude -p --input-format stream-json --output-format stream-json`
 * process: user messages and control requests (with their answers) on stdin, every other
 * stdout message to the listeners, and control requests from Claude Code (permission
 * prompts) to the registered handler. When the process exits, every waiting request is
 * rejected with {@link ClaudeCodeExited} carrying the stderr tail.
 */
export class StreamJsonClient {
  /** The Claude Code process: exit, stderr tail (optionally since a mark), close. */
  readonly agent: AgentProcess;
  private readonly lines: JsonLines;
  private readonly pending = new PendingRequests<JsonObject>({
    timeout: (subtype, ms) => new ClaudeCodeTimeout(subtype, ms),
  });
  private nextId = 1;
  private readonly messageListeners = new Set<(message: StreamMessage) => void>();
  private hostHandler: HostRequestHandler | undefined;

  constructor(readonly process: ManagedProcess) {
    this.agent = new AgentProcess(process);
    this.lines = new JsonLines(process, (message) => this.receive(message));
    this.agent.onExit((exit) => {
      const tail = this.agent.stderrTail();
      this.pending.rejectAll(
        (subtype) => new ClaudeCodeExited(`while waiting for ${subtype}`, exit, tail),
      );
    });
  }

  /** Lines on stdout that were not protocol messages (kept for diagnosis). */
  get problems(): string[] {
    return this.lines.problems;
  }

  /** Calls `listener` with every message that is not a control message. */
  onMessage(listener: (message: StreamMessage) => void): () => void {
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
  control(
    request: JsonObject & { subtype: string },
    options: ControlOptions = {},
  ): Promise<JsonObject> {
    const { subtype } = request;
    const exit = this.agent.exitDescription;
    if (exit !== undefined) {
      return Promise.reject(
        new ClaudeCodeExited(`before ${subtype} could be sent`, exit, this.agent.stderrTail()),
      );
    }
    const id = `m3-${this.nextId++}`;
    const answer = this.pending.add(id, subtype, options);
    this.lines.write({ type: "control_request", request_id: id, request });
    return answer;
  }

  /** Sends one user turn; false when Claude Code's stdin is closed. */
  sendUser(text: string): boolean {
    return this.lines.write({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
    });
  }

  /** Ends Claude Code (see {@link AgentProcess.close}). Idempotent. */
  close(graceMs = 2000): Promise<void> {
    return this.agent.close(graceMs);
  }

  private receive(message: Record<string, unknown>): void {
    if (typeof message.type !== "string") {
      this.lines.problems.push(JSON.stringify(message).slice(0, 500));
      return;
    }
    switch (message.type) {
      case "control_response":
        this.settle(message.response);
        return;
      case "control_request":
        void this.answer(message as unknown as HostControlRequest);
        return;
      case "control_cancel_request":
      case "keep_alive":
        return;
      default:
        for (const listener of [...this.messageListeners]) listener(message as StreamMessage);
    }
  }

  private settle(response: unknown): void {
    if (!isJsonObject(response) || typeof response.request_id !== "string") return;
    if (response.subtype === "error") {
      const error = String(response.error ?? "unknown error");
      this.pending.reject(response.request_id, (subtype) => new ClaudeControlError(subtype, error));
    } else {
      const payload = isJsonObject(response.response) ? (response.response as JsonObject) : {};
      this.pending.resolve(response.request_id, payload);
    }
  }

  private async answer(request: HostControlRequest): Promise<void> {
    const reply = (response: JsonObject): void => {
      this.lines.write({ type: "control_response", response });
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
      reply({
        subtype: "error",
        request_id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
