import {
  JsonLinesClient,
  type AgentProcess,
  type ManagedProcess,
  type RequestOptions,
} from "@jest-m3/core/adapter-kit";
import { PiCommandError, PiExited, PiTimeout } from "./errors.js";
import type { Json, JsonObject, PiEvent, RpcResponse } from "./protocol.js";

/**
 * A client of one `pi --mode rpc` process: commands with an id on stdin, each settled by
 * the `response` that repeats the id; every other record (the session's events) to the
 * listeners, in order. Lines are split on LF only (Pi's JSON may hold U+2028). When Pi
 * exits, every waiting command is rejected with {@link PiExited} and Pi's stderr tail.
 */
export class PiRpcClient {
  /** Pi's process: its exit, its stderr tail, its close. */
  readonly agent: AgentProcess;
  private readonly lines: JsonLinesClient<RpcResponse>;

  constructor(process: ManagedProcess) {
    this.lines = new JsonLinesClient<RpcResponse>(process, {
      answerOf: (message) =>
        message.type === "response" && typeof message.id === "string"
          ? { id: message.id, answer: message as unknown as RpcResponse }
          : undefined,
      exited: (what, exit, tail) => new PiExited(what, exit, tail),
      timeout: (what, timeoutMs) => new PiTimeout(what, timeoutMs),
    });
    this.agent = this.lines.agent;
  }

  /** Calls `listener` with every event (every record that is not a command's response). */
  onEvent(listener: (event: PiEvent) => void): () => void {
    return this.lines.onMessage((message) => listener(message as PiEvent));
  }

  /**
   * Sends the command `type` and resolves with its response's `data`.
   *
   * @throws {@link PiCommandError} when Pi answers `success: false`; {@link PiExited} when
   * Pi ends first; {@link PiTimeout}; the signal's reason.
   */
  async command(
    type: string,
    fields: JsonObject = {},
    options: RequestOptions = {},
  ): Promise<Json | undefined> {
    const response = await this.lines.request(type, (id) => ({ ...fields, id, type }), options);
    if (!response.success) throw new PiCommandError(type, response.error ?? "no reason given");
    return response.data;
  }

  /** Ends Pi: closes its stdin (it shuts down and stops its MCP servers), then signals. */
  close(graceMs = 2000): Promise<void> {
    return this.lines.close(graceMs);
  }
}
