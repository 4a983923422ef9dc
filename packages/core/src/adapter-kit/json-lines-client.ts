/**
 * A client of an agent that speaks JSON lines on stdio with a protocol of its own (not
 * JSON-RPC): requests carry an id the adapter picks, the agent's answer repeats it, and
 * every other message goes to the listeners in order. When the agent exits, every waiting
 * request is rejected with the adapter's exit error and the stderr tail; a write after it
 * died does not crash the test process.
 *
 * @example
 * ```ts
 * const client = new JsonLinesClient<Answer>(child, {
 *   answerOf: (message) => (message.type === "response" && typeof message.id === "string" ? { id: message.id, answer: message as Answer } : undefined),
 *   exited: (what, exit, tail) => new AgentExited("My Agent", what, exit, tail),
 *   timeout: (what, ms) => new AgentTimeout("My Agent", what, ms),
 * });
 * const answer = await client.request("get_state", (id) => ({ id, type: "get_state" }), { timeoutMs: 30_000 });
 * ```
 */
import type { ManagedProcess } from "../processes/managed-process.js";
import { AgentProcess } from "./agent-process.js";
import { JsonLines, type JsonObject } from "./json-lines.js";
import { PendingRequests, type RequestOptions } from "./pending-requests.js";

/** How a {@link JsonLinesClient} reads its agent's answers and words its errors. */
export interface JsonLinesClientOptions<A> {
  /** The request a message answers (its id) and the answer; undefined for any other message. */
  answerOf(message: JsonObject): { readonly id: string; readonly answer: A } | undefined;
  /** The error of a request the agent exited before answering (or was sent after it exited). */
  exited(what: string, exit: string, stderrTail: string): Error;
  /** The error of a request not answered in time. */
  timeout(what: string, timeoutMs: number): Error;
}

/** Requests and messages over one agent's JSON lines. */
export class JsonLinesClient<A> {
  /** The agent process: exit, stderr tail, close. */
  readonly agent: AgentProcess;
  private readonly lines: JsonLines;
  private readonly pending: PendingRequests<A>;
  private readonly listeners = new Set<(message: JsonObject) => void>();
  private nextId = 1;

  constructor(
    process: ManagedProcess,
    private readonly options: JsonLinesClientOptions<A>,
  ) {
    this.agent = new AgentProcess(process);
    this.pending = new PendingRequests<A>({ timeout: options.timeout });
    // A write after the agent died must not crash the test process.
    process.child.stdin.on("error", () => undefined);
    this.lines = new JsonLines(process, (message) => this.receive(message));
    this.agent.onExit((exit) => {
      const tail = this.agent.stderrTail();
      this.pending.rejectAll((what) => options.exited(`while waiting for ${what}`, exit, tail));
    });
  }

  /** Lines on stdout that were not JSON objects (kept for diagnosis). */
  get problems(): readonly string[] {
    return this.lines.problems;
  }

  /** Calls `listener` with every message that answers no request; returns the function that stops it. */
  onMessage(listener: (message: JsonObject) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Writes the request `message(id)` makes (`id` is `m3-<n>`) and resolves with its
   * answer; `what` names it in errors.
   */
  request(what: string, message: (id: string) => JsonObject, options?: RequestOptions): Promise<A> {
    const exit = this.agent.exitDescription;
    if (exit !== undefined) {
      return Promise.reject(
        this.options.exited(`before ${what} could be sent`, exit, this.agent.stderrTail()),
      );
    }
    const id = `m3-${this.nextId++}`;
    const answer = this.pending.add(id, what, options);
    this.lines.write(message(id));
    return answer;
  }

  /**
   * Writes `message` as one line, for what answers nothing (a user turn, the adapter's reply
   * to the agent's own request); false when the agent's stdin is already closed.
   */
  send(message: JsonObject): boolean {
    return this.lines.write(message);
  }

  /** Ends the agent (see {@link AgentProcess.close}). Idempotent. */
  close(graceMs?: number): Promise<void> {
    return this.agent.close(graceMs);
  }

  private receive(message: JsonObject): void {
    const answer = this.options.answerOf(message);
    if (answer && this.pending.resolve(answer.id, answer.answer)) return;
    for (const listener of [...this.listeners]) listener(message);
  }
}
