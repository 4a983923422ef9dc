import { ReadableStream, WritableStream } from "node:stream/web";
import type { ManagedProcess } from "@jest-m3/core/adapter-kit";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk" with {
  "resolution-mode": "import",
};

/** The longest line taken from an agent (a 10 MB tool result fits, a runaway stream does not). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/** What the transport saw on the agent's stdout that was not an ACP message. */
export interface StdoutProblem {
  readonly kind: "malformed" | "too_long";
  /** The start of the offending line. */
  readonly line: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The ACP stream over an agent's stdio: newline-delimited JSON-RPC, one message per line.
 * Unlike the SDK's `ndJsonStream`, a line that is not a JSON object is not only answered
 * with a parse error: it is reported to `onProblem`, so the adapter can fail the turn that
 * was running instead of waiting on an agent that broke the protocol. The streams are
 * Node's own web streams, whichever realm the SDK was loaded in.
 */
export function stdioStream(
  process: ManagedProcess,
  onProblem: (problem: StdoutProblem) => void,
  maxLineBytes = MAX_LINE_BYTES,
): Stream {
  const stdin = process.child.stdin;
  const stdout = process.child.stdout;
  // Cleared when the client cancels the stream (it closed the connection) or stdout closes:
  // a line the agent still writes then is dropped, not enqueued into a closed stream.
  let open = true;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let skipping = false;
      const take = (line: Buffer): void => {
        const text = line.toString("utf8").trim();
        if (text === "") return;
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          onProblem({ kind: "malformed", line: text.slice(0, 500) });
          return;
        }
        if (isRecord(message)) {
          if (open) controller.enqueue(message as AnyMessage);
        } else onProblem({ kind: "malformed", line: text.slice(0, 500) });
      };
      stdout.on("data", (chunk: Buffer) => {
        let start = 0;
        for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, start)) {
          const piece = chunk.subarray(start, index);
          start = index + 1;
          if (skipping) {
            skipping = false;
            continue;
          }
          pending.push(piece);
          take(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
        const rest = chunk.subarray(start);
        if (rest.length === 0 || skipping) return;
        pending.push(rest);
        pendingBytes += rest.length;
        if (pendingBytes > maxLineBytes) {
          onProblem({
            kind: "too_long",
            line: Buffer.concat(pending).subarray(0, 200).toString("utf8"),
          });
          pending = [];
          pendingBytes = 0;
          skipping = true;
        }
      });
      stdout.once("close", () => {
        if (pending.length > 0 && !skipping) take(Buffer.concat(pending));
        pending = [];
        if (!open) return;
        open = false;
        try {
          controller.close();
        } catch {
          // Already closed or errored.
        }
      });
    },
    cancel() {
      open = false;
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (stdin.destroyed || stdin.writableEnded) return;
      return new Promise<void>((resolve) => {
        // A write error means the agent is gone; the exit path reports it.
        stdin.write(JSON.stringify(message) + "\n", () => resolve());
      });
    },
  });
  return { readable, writable } as unknown as Stream;
}
