import { createInterface } from "node:readline";
import type { ExitInfo, ManagedProcess } from "@jest-m3/core/harness";
import { ClaudeCodeExited, ClaudeCodeTimeout, ClaudeControlError } from "./errors.js";
import type { HostControlRequest, Json, JsonObject, StreamMessage } from "./protocol.js";

/** Answers a control request Claude Code sent (`can_use_tool`); a throw becomes an error reply. */
export type HostRequestHandler = (request: HostControlRequest) => Promise<Json> | Json;

/** Options of {@link StreamJsonClient.control}. */
export interface ControlOptions {
  /** Reject with {@link ClaudeCodeTimeout} when there is no answer in time. */
  readonly timeoutMs?: number;
  /** Reject with the signal's reason when it aborts (the request is not withdrawn). */
  readonly signal?: AbortSignal;
}

interface Pending {
  readonly subtype: string;
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
}

// eslint-disable-next-line no-control-regex -- the pattern is exactly the ANSI escape
const ANSI_COLOR = /\u001b\[[0-9;]*m/g;

function describeExit(exit: ExitInfo, spawnError: Error | undefined): string {
  if (spawnError) return `could not be started: ${spawnError.message}`;
  if (exit.signal) return `signal ${exit.signal}`;
  return `code ${exit.code ?? "unknown"}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A client of one `claude -p --input-format stream-json --output-format stream-json`
 * process: user messages and control requests (with their answers) on stdin, every other
 * stdout message to the listeners, and control requests from Claude Code (permission
 * prompts) to the registered handler. When the process exits, every waiting request is
 * rejected with {@link ClaudeCodeExited} carrying the stderr tail.
 */
export class StreamJsonClient {
  /** Lines on stdout that were not protocol messages (kept for diagnosis). */
  readonly problems: string[] = [];
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly messageListeners = new Set<(message: StreamMessage) => void>();
  private readonly exitListeners = new Set<(exit: string) => void>();
  private hostHandler: HostRequestHandler | undefined;
  private spawnError: Error | undefined;
  private exit: string | undefined;
  private closing: Promise<void> | undefined;
  /** Set by {@link markStderr}: stderr written since (a warm process's current session). */
  private stderrSince: string | undefined;

  constructor(readonly process: ManagedProcess) {
    process.spawned.catch((error: unknown) => {
      this.spawnError = error instanceof Error ? error : new Error(String(error));
    });
    // A write after Claude Code died must not crash the test process.
    process.child.stdin.on("error", () => undefined);
    const lines = createInterface({ input: process.child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => this.receive(line));
    void process.exited.then((info) => this.exited(describeExit(info, this.spawnError)));
  }

  /** How the process ended (`code 0`, `signal SIGKILL`, ...), or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.exit;
  }

  /**
   * The last lines of Claude Code's stderr, without terminal colors; after
   * {@link markStderr}, only of what it wrote since.
   */
  stderrTail(lines = 20): string {
    const text =
      this.stderrSince === undefined
        ? this.process.stderrTail(lines)
        : this.stderrSince.split("\n").filter(Boolean).slice(-lines).join("\n");
    return text.replace(ANSI_COLOR, "");
  }

  /**
   * From now on, {@link stderrTail} holds only what Claude Code writes after this call: a
   * warm process's next session never sees what it wrote for an earlier one.
   */
  markStderr(): void {
    if (this.stderrSince === undefined) {
      this.process.child.stderr.on("data", (chunk: Buffer | string) => {
        this.stderrSince = (this.stderrSince + String(chunk)).slice(-16_384);
      });
    }
    this.stderrSince = "";
  }

  /** Calls `listener` with every message that is not a control message. */
  onMessage(listener: (message: StreamMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** Calls `listener` once the process has exited, with how it ended. */
  onExit(listener: (exit: string) => void): () => void {
    if (this.exit !== undefined) {
      listener(this.exit);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
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
    if (this.exit !== undefined) {
      return Promise.reject(
        new ClaudeCodeExited(`before ${subtype} could be sent`, this.exit, this.stderrTail()),
      );
    }
    const id = `m3-${this.nextId++}`;
    return new Promise<JsonObject>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const { signal, timeoutMs } = options;
      const cleanup = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason ?? new Error(`${subtype} was aborted`));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new ClaudeCodeTimeout(subtype, timeoutMs));
        }, timeoutMs);
      }
      this.pending.set(id, {
        subtype,
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      this.write({ type: "control_request", request_id: id, request });
    });
  }

  /** Sends one user turn. */
  sendUser(text: string): boolean {
    return this.write({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
    });
  }

  /**
   * Ends Claude Code: closes its stdin (it exits and stops its MCP servers), waits up to
   * `graceMs`, then stops the process group (SIGTERM, then SIGKILL). Idempotent.
   */
  close(graceMs = 2000): Promise<void> {
    this.closing ??= (async () => {
      if (this.exit === undefined) {
        this.process.child.stdin.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          this.process.exited,
          new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      await this.process.stop(graceMs);
    })();
    return this.closing;
  }

  private write(message: JsonObject): boolean {
    const stdin = this.process.child.stdin;
    if (stdin.destroyed || stdin.writableEnded) return false;
    stdin.write(JSON.stringify(message) + "\n");
    return true;
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.problems.push(line.slice(0, 500));
      return;
    }
    if (!isObject(message) || typeof message.type !== "string") {
      this.problems.push(line.slice(0, 500));
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
    if (!isObject(response) || typeof response.request_id !== "string") return;
    const pending = this.pending.get(response.request_id);
    if (!pending) return;
    if (response.subtype === "error") {
      pending.reject(
        new ClaudeControlError(pending.subtype, String(response.error ?? "unknown error")),
      );
    } else {
      pending.resolve(isObject(response.response) ? (response.response as JsonObject) : {});
    }
  }

  private async answer(request: HostControlRequest): Promise<void> {
    const reply = (response: JsonObject): void => {
      this.write({ type: "control_response", response });
    };
    if (!this.hostHandler) {
      reply({
        subtype: "error",
        request_id: request.request_id,
        error: `jest-m3 does not handle ${request.request?.subtype}`,
      });
      return;
    }
    try {
      const result = await this.hostHandler(request);
      reply({ subtype: "success", request_id: request.request_id, response: result });
    } catch (error) {
      reply({
        subtype: "error",
        request_id: request.request_id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private exited(description: string): void {
    this.exit = description;
    const tail = this.stderrTail();
    for (const pending of [...this.pending.values()]) {
      pending.reject(
        new ClaudeCodeExited(`while waiting for ${pending.subtype}`, description, tail),
      );
    }
    this.pending.clear();
    for (const listener of [...this.exitListeners]) listener(description);
    this.exitListeners.clear();
  }
}
