/**
 * Framing for agents that speak one JSON object per line on stdio: each complete line on
 * stdout is parsed and handed on, anything else is kept as a problem (for diagnosis), a
 * line longer than the limit is dropped whole rather than held in memory, and writes after
 * the agent's stdin closed are refused instead of throwing.
 *
 * @example
 * ```ts
 * const lines = new JsonLines(child, (message) => console.log(message.type));
 * lines.write({ type: "user", text: "hello" });
 * ```
 */
import { StringDecoder } from "node:string_decoder";
import type { ManagedProcess } from "../processes/managed-process.js";

/** A JSON object as read from a line. */
export type JsonObject = Record<string, unknown>;

/** The longest line kept by default: large tool results travel on one line. */
export const MAX_LINE_LENGTH = 64 * 1024 * 1024;

/** How much of a bad line a problem keeps. */
const PROBLEM_LENGTH = 500;

/** A line that was not a JSON object (`malformed`) or longer than the limit (`too_long`, its start). */
export interface LineProblem {
  readonly kind: "malformed" | "too_long";
  readonly line: string;
}

/** True for a plain object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One JSON object per line on an agent's stdio. */
export class JsonLines {
  /** Lines on stdout that were not JSON objects, or were too long (their start). */
  readonly problems: string[] = [];
  private buffer = "";
  private skipping = false;
  private readonly problemListeners = new Set<(problem: LineProblem) => void>();

  /**
   * @param receive - Gets every JSON object the agent writes, in order.
   * @param maxLineLength - Longer lines are dropped and noted in {@link problems}.
   */
  constructor(
    private readonly process: ManagedProcess,
    private readonly receive: (message: JsonObject) => void,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {
    const decoder = new StringDecoder("utf8");
    process.child.stdout.on("data", (chunk: Buffer) => this.take(decoder.write(chunk)));
    process.child.stdout.on("end", () => this.take(decoder.end() + "\n"));
  }

  /** Calls `listener` with every line kept in {@link problems}; returns the function that stops it. */
  onProblem(listener: (problem: LineProblem) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  /** Writes `message` as one line; false when the agent's stdin is already closed. */
  write(message: JsonObject): boolean {
    const stdin = this.process.child.stdin;
    if (stdin.destroyed || stdin.writableEnded) return false;
    stdin.write(JSON.stringify(message) + "\n");
    return true;
  }

  private take(text: string): void {
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      const line = this.buffer + text.slice(start, end);
      this.buffer = "";
      start = end + 1;
      if (this.skipping) this.skipping = false;
      else if (line.length > this.maxLineLength) this.tooLong(line);
      else this.line(line.replace(/\r$/, ""));
    }
    if (this.skipping) return;
    this.buffer += text.slice(start);
    if (this.buffer.length > this.maxLineLength) {
      this.tooLong(this.buffer);
      this.buffer = "";
      this.skipping = true;
    }
  }

  private tooLong(start: string): void {
    const shown = start.slice(0, PROBLEM_LENGTH);
    this.problems.push(`(a line longer than ${this.maxLineLength} characters, dropped) ${shown}`);
    this.tell({ kind: "too_long", line: shown });
  }

  private malformed(line: string): void {
    this.problems.push(line.slice(0, PROBLEM_LENGTH));
    this.tell({ kind: "malformed", line: line.slice(0, PROBLEM_LENGTH) });
  }

  private tell(problem: LineProblem): void {
    for (const listener of [...this.problemListeners]) listener(problem);
  }

  private line(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.malformed(line);
      return;
    }
    if (isJsonObject(message)) this.receive(message);
    else this.malformed(line);
  }
}
