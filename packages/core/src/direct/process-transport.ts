import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { TransportError } from "../errors.js";
import type { ManagedProcess } from "../processes/managed-process.js";
import { parseJsonRpcLine, type ParsedLine } from "../wire/json-rpc.js";
import { LineSplitter } from "../wire/line-splitter.js";
import type { TextTransport } from "./recording-transport.js";

/**
 * True for exactly the values the SDK's `JSONRPCResultResponseSchema` accepts without a
 * `_meta` in the result: `{ jsonrpc: "2.0", id, result }`, nothing else, `id` a string or an
 * integer, `result` an object. Nearly every line a server writes is one; checked by hand it
 * costs a fraction of the schema union, which other lines still go through.
 */
function isPlainResultResponse(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  let keys = 0;
  for (const key in message) {
    if (key !== "jsonrpc" && key !== "id" && key !== "result") return false;
    keys++;
  }
  const { id, result } = message;
  return (
    keys === 3 &&
    message.jsonrpc === "2.0" &&
    (typeof id === "string" || Number.isInteger(id)) &&
    typeof result === "object" &&
    result !== null &&
    !Array.isArray(result) &&
    (result as Record<string, unknown>)._meta === undefined
  );
}

/** {@link parseJsonRpcLine}, with the common case (a plain result response) checked fast. */
export function parseStdioLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return parseJsonRpcLine(line);
  }
  return isPlainResultResponse(value)
    ? { ok: true, message: value as JSONRPCMessage }
    : parseJsonRpcLine(line);
}

/**
 * An MCP stdio transport over a {@link ManagedProcess}: newline-delimited JSON-RPC on the
 * child's stdin and stdout. Unlike the SDK's stdio transport it does not spawn or kill
 * anything itself, so the kit keeps one owner for every process, and it reports lines
 * that are not JSON-RPC through {@link ProcessTransport.onmalformed} instead of dropping them.
 */
export class ProcessTransport implements TextTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called instead of `onmessage` when set: each message with the line it was parsed from. */
  onmessagetext?: (message: JSONRPCMessage, text: string) => void;
  /** Called with each stdout line that is not a JSON-RPC message. */
  onmalformed?: (raw: string, problem: string) => void;

  private readonly lines = new LineSplitter();
  private closed = false;

  constructor(
    private readonly process: ManagedProcess,
    private readonly server: string,
    private readonly graceMs: number,
  ) {}

  async start(): Promise<void> {
    const { child } = this.process;
    child.stdout.on("data", (chunk: Buffer) => {
      for (const line of this.lines.push(chunk)) {
        if (line.trim() === "") continue;
        const parsed = parseStdioLine(line);
        if (parsed.ok) {
          if (this.onmessagetext) this.onmessagetext(parsed.message, line);
          else this.onmessage?.(parsed.message);
        } else {
          this.onmalformed?.(line, parsed.problem);
          this.onerror?.(
            new TransportError(this.server, `wrote a line that is not JSON-RPC: ${parsed.problem}`),
          );
        }
      }
    });
    void this.process.exited.then(() => this.finish());
    await this.process.spawned;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    return this.sendText(JSON.stringify(message));
  }

  /** Writes `text` (a serialised message, no newline) and a newline to the server's stdin. */
  async sendText(text: string): Promise<void> {
    const { stdin } = this.process.child;
    if (this.closed || stdin.destroyed || !stdin.writable) {
      throw new TransportError(this.server, "cannot send: the server process is not running", {
        stderrTail: this.process.stderrTail(),
      });
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(text + "\n", (error) =>
        error
          ? reject(new TransportError(this.server, `write failed: ${error.message}`))
          : resolve(),
      );
    });
  }

  async close(): Promise<void> {
    await this.process.stop(this.graceMs);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
