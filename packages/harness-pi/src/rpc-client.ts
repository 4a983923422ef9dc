import {
  AgentProcess,
  JsonLines,
  PendingRequests,
  type RequestOptions,
  type ManagedProcess,
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
  private readonly lines: JsonLines;
  private readonly pending = new PendingRequests<RpcResponse>({
    timeout: (what, timeoutMs) => new PiTimeout(what, timeoutMs),
  });
  private readonly listeners = new Set<(event: PiEvent) => void>();
  private nextId = 1;

  constructor(process: ManagedProcess) {
    this.agent = new AgentProcess(process);
    // A write after Pi died must not crash the test process.
    process.child.stdin.on("error", () => undefined);
    this.lines = new JsonLines(process, (message) => this.receive(message));
    this.agent.onExit((exit) =>
      this.pending.rejectAll(
        (what) => new PiExited(`while waiting for ${what}`, exit, this.agent.stderrTail()),
      ),
    );
  }

  /** Lines on stdout that were not protocol records (kept for diagnosis). */
  get problems(): readonly string[] {
    return this.lines.problems;
  }

  /** Calls `listener` with every event (every record that is not a command's response). */
  onEvent(listener: (event: PiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
    const exit = this.agent.exitDescription;
    if (exit !== undefined)
      throw new PiExited(`before ${type} could be sent`, exit, this.agent.stderrTail());
    const id = `m3-${this.nextId++}`;
    const answer = this.pending.add(id, type, options);
    this.lines.write({ ...fields, id, type });
    const response = await answer;
    if (!response.success) throw new PiCommandError(type, response.error ?? "no reason given");
    return response.data;
  }

  /** Ends Pi: closes its stdin (it shuts down and stops its MCP servers), then signals. */
  close(graceMs = 2000): Promise<void> {
    return this.agent.close(graceMs);
  }

  private receive(message: Record<string, unknown>): void {
    if (message.type === "response" && typeof message.id === "string") {
      if (this.pending.resolve(message.id, message as unknown as RpcResponse)) return;
    }
    for (const listener of [...this.listeners]) listener(message as PiEvent);
  }
}
