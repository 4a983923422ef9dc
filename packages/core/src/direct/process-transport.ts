import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { TransportError } from "../errors.js";
import type { ManagedProcess } from "../processes/managed-process.js";
import { parseJsonRpcLine } from "../wire/json-rpc.js";
import { LineSplitter } from "../wire/line-splitter.js";

/**
 * An MCP stdio transport over a {@link ManagedProcess}: newline-delimited JSON-RPC on the
 * child's stdin and stdout. Unlike the SDK's stdio transport it does not spawn or kill
 * anything itself, so the kit keeps one owner for every process, and it reports lines
 * that are not JSON-RPC through {@link ProcessTransport.onmalformed} instead of dropping them.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
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
        const parsed = parseJsonRpcLine(line);
        if (parsed.ok) this.onmessage?.(parsed.message);
        else {
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
    const { stdin } = this.process.child;
    if (this.closed || stdin.destroyed || !stdin.writable) {
      throw new TransportError(this.server, "cannot send: the server process is not running", {
        stderrTail: this.process.stderrTail(),
      });
    }
    const text = JSON.stringify(message) + "\n";
    await new Promise<void>((resolve, reject) => {
      stdin.write(text, (error) =>
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
