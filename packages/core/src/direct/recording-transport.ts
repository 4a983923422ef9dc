import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Observation, TraceRecorder } from "../evidence/recorder.js";
import type { ToolCallStatus } from "../evidence/trace.js";
import { monotonicNow } from "../evidence/clock.js";

/** Why a connection closed, and what that makes of the calls still waiting on it. */
export interface CloseCause {
  readonly reason: string;
  /** `transport_error` when the connection broke, `incomplete` when the test closed it. */
  readonly status: ToolCallStatus;
}

/**
 * Ties the request an operation sends to that operation: run the operation inside
 * `operationTag.run(tag, ...)` and the recorder can find its `tools/call` by `tag`.
 *
 * The tag is current only while `run` executes synchronously. That is enough: the SDK's
 * `request()` sends its message from inside its promise's executor, before it returns. An
 * `AsyncLocalStorage` did the same at the price of async hooks on every promise of the
 * process, which cost a direct call about a third of its client CPU (issue 36).
 */
export const operationTag = {
  current: undefined as object | undefined,
  /** Calls `run` with `tag` current, and restores the tag that was current before. */
  run<T>(tag: object, run: () => T): T {
    const previous = this.current;
    this.current = tag;
    try {
      return run();
    } finally {
      this.current = previous;
    }
  },
  /** The tag of the operation sending right now, if any. */
  getStore(): object | undefined {
    return this.current;
  },
};

/** Optional hooks of a {@link RecordingTransport}. */
export interface RecordingHooks {
  /** Rewrites a message the client sends before it is recorded and sent (a pinned version). */
  readonly outgoing?: (message: JSONRPCMessage) => JSONRPCMessage;
  /** Sees every message from the server, after it is recorded. */
  readonly incoming?: (message: JSONRPCMessage) => void;
  /** What is recorded instead of the message itself (secrets redacted). */
  readonly redact?: (message: JSONRPCMessage) => JSONRPCMessage;
}

/**
 * A transport whose messages cross as JSON text it can share: it sends a message serialised
 * by the caller and tells the line each message was parsed from. The recording keeps that
 * text (one string per message) and parses it again only when the trace is read.
 */
export interface TextTransport extends Transport {
  /** Sends a message the caller serialised with `JSON.stringify` (no newline). */
  sendText(text: string): Promise<void>;
  /** Set by the recording in place of `onmessage`: each message with its line. */
  onmessagetext?: (message: JSONRPCMessage, text: string) => void;
}

function serialised(message: JSONRPCMessage): string | undefined {
  try {
    return JSON.stringify(message);
  } catch {
    return undefined;
  }
}

function isTextTransport(transport: Transport): transport is TextTransport {
  return typeof (transport as Partial<TextTransport>).sendText === "function";
}

/**
 * Wraps any MCP {@link Transport} and records every message that crosses it, in both
 * directions, before it is handed on. The client above and the transport below are the
 * SDK's own; nothing about their behaviour changes.
 */
export class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly where: Observation;
  /** The inner transport when it shares its text (stdio), else undefined. */
  private readonly text: TextTransport | undefined;

  constructor(
    private readonly inner: Transport,
    private readonly recorder: TraceRecorder,
    server: string,
    connection: string,
    private readonly closeCause: () => CloseCause,
    private readonly hooks: RecordingHooks = {},
  ) {
    this.text = isTextTransport(inner) ? inner : undefined;
    if (this.text) {
      const redact = hooks.redact;
      // Kept text is parsed (and redacted, with the secrets known by then) when read.
      const decode = redact
        ? (text: string) => redact(JSON.parse(text) as JSONRPCMessage)
        : (text: string) => JSON.parse(text) as JSONRPCMessage;
      this.where = { server, connection, decode };
      this.text.onmessagetext = (message, text) => this.received(message, text);
    } else {
      this.where = { server, connection };
      inner.onmessage = (message, extra) => this.received(message, undefined, extra);
    }
    inner.onerror = (error) => {
      this.recorder.event("transport_error", error.message, this.where);
      this.onerror?.(error);
    };
    inner.onclose = () => {
      const cause = this.closeCause();
      this.recorder.connectionClosed(this.where, cause.reason, cause.status);
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(original: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const message = this.hooks.outgoing?.(original) ?? original;
    const tag = operationTag.getStore();
    // Serialised once, for the wire and the trace; kept as text when nothing was redacted.
    // A message that does not serialise goes the common way, whose send rejects.
    const text = this.text ? serialised(message) : undefined;
    if (text !== undefined) {
      // Written first (the write is issued before sendText returns), recorded at the time it
      // was sent: the server works on it while it is recorded (issue 36).
      const at = monotonicNow();
      const sent = this.text!.sendText(text);
      const kept = this.hooks.redact?.(message) ?? message;
      const where = tag ? { ...this.where, tag, at } : { ...this.where, at };
      this.recorder.record("to_server", kept, where, kept === message ? text : undefined);
      return sent;
    }
    const where = tag ? { ...this.where, tag } : this.where;
    this.recorder.record("to_server", this.hooks.redact?.(message) ?? message, where);
    return this.inner.send(message, options);
  }

  private received(message: JSONRPCMessage, text?: string, extra?: MessageExtraInfo): void {
    if (text !== undefined) {
      // Recorded when the recorder is next used (the next request sent, or any read), with
      // the time it came: the answer goes on to the client first (issue 36).
      this.recorder.recordSoon("from_server", message, this.where, text, this.hooks.redact);
    } else {
      const kept = this.hooks.redact?.(message) ?? message;
      this.recorder.record("from_server", kept, this.where);
    }
    this.hooks.incoming?.(message);
    this.onmessage?.(message, extra);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
