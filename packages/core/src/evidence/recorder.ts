import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { monotonicNow } from "./clock.js";
import type {
  Direction,
  EvidenceGap,
  JsonRpcErrorValue,
  MessageKind,
  ToolCall,
  ToolCallStatus,
  Trace,
  TraceEvent,
  TraceMessage,
} from "./trace.js";
import { isUnavailable, unavailable, type Unavailable } from "./unavailable.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type JsonRpcId = string | number;

/** Where a message was observed. */
export interface Observation {
  readonly server: string;
  readonly connection: string;
  /** Defaults to now. */
  readonly at?: number;
  /** Ties a request to the operation that sent it (see {@link TraceRecorder.callFor}). */
  readonly tag?: object;
  /** `policy` when the capture answered the message itself. */
  readonly origin?: "policy";
  /**
   * Parses the wire text given to {@link TraceRecorder.record} into the message to keep
   * (redacted as the recorder's caller redacts). With it, a message is kept as its text and
   * parsed when the trace is first read, once.
   */
  readonly decode?: (text: string) => JSONRPCMessage;
}

/**
 * Messages kept as the text that crossed the wire, until the trace is read: each message's
 * fields in a column of its own and its text as the one string it already was. A message
 * kept as objects costs every young-generation collection it survives a copy of each (two
 * collections per message, about a kilobyte a call), which cost a direct call more than the
 * rest of its recording (issue 36); a column entry is no object at all, and a flat string
 * is one copy. (Copying each text into one UTF-8 buffer outside the heap instead cost a call
 * about 3 µs more CPU than keeping the string: `npm run bench -- direct`, issue 36.)
 */
class UnreadMessages {
  private readonly texts: string[] = [];
  private readonly ats: number[] = [];
  private readonly servers: string[] = [];
  private readonly connections: string[] = [];
  private readonly directions: Direction[] = [];
  private readonly kinds: MessageKind[] = [];
  private readonly turnIds: (string | null)[] = [];
  private readonly decoders: ((text: string) => JSONRPCMessage)[] = [];

  get size(): number {
    return this.texts.length;
  }

  add(
    direction: Direction,
    kind: MessageKind,
    at: number,
    turnId: string | null,
    where: Observation,
    decode: (text: string) => JSONRPCMessage,
    text: string,
  ): void {
    this.texts.push(text);
    this.ats.push(at);
    this.servers.push(where.server);
    this.connections.push(where.connection);
    this.directions.push(direction);
    this.kinds.push(kind);
    this.turnIds.push(turnId);
    this.decoders.push(decode);
  }

  /** Appends every message to `into` as entries, parsed (seq from `into`'s length), and empties. */
  readInto(into: TraceMessage[]): void {
    for (let index = 0; index < this.texts.length; index++) {
      // Same fields, same order as record()'s literal.
      into.push({
        seq: into.length,
        server: this.servers[index]!,
        connection: this.connections[index]!,
        direction: this.directions[index]!,
        at: this.ats[index]!,
        turnId: this.turnIds[index]!,
        kind: this.kinds[index]!,
        message: this.decoders[index]!(this.texts[index]!),
      });
    }
    for (const column of [
      this.texts,
      this.ats,
      this.servers,
      this.connections,
      this.directions,
      this.kinds,
      this.turnIds,
      this.decoders,
    ]) {
      column.length = 0;
    }
  }
}

/**
 * Calls answered by an unread message, as columns (see {@link UnreadMessages}): a call's
 * object is dropped when its answer comes, young, and built again when the trace is read.
 */
class UnreadCalls {
  readonly positions: number[] = [];
  readonly responses: number[] = [];
  readonly statuses: ToolCallStatus[] = [];
  readonly turnIds: (string | null)[] = [];
  readonly servers: string[] = [];
  readonly connections: string[] = [];
  readonly tools: string[] = [];
  readonly args: ToolCall["arguments"][] = [];
  readonly jsonrpcIds: ToolCall["jsonrpcId"][] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];

  get size(): number {
    return this.positions.length;
  }

  /** Keeps what `call` holds (answered at `at` by message `response`); returns its index. */
  add(position: number, call: ToolCall, status: ToolCallStatus, response: number, at: number) {
    this.positions.push(position);
    this.responses.push(response);
    this.statuses.push(status);
    this.turnIds.push(call.turnId);
    this.servers.push(call.server);
    this.connections.push(call.connection);
    this.tools.push(call.tool);
    this.args.push(call.arguments);
    this.jsonrpcIds.push(call.jsonrpcId);
    this.starts.push(call.startedAt as number);
    this.ends.push(at);
    return this.positions.length - 1;
  }

  /** Builds every call into its position of `calls`, results from `messages`, and empties. */
  readInto(calls: (Mutable<ToolCall> | number)[], messages: readonly TraceMessage[]): void {
    for (let index = 0; index < this.positions.length; index++) {
      const message = messages[this.responses[index]!]!.message as { result?: unknown };
      const startedAt = this.starts[index]!;
      const endedAt = this.ends[index]!;
      const position = this.positions[index]!;
      // Same fields, same order as observeRequestSide()'s literal.
      calls[position] = {
        id: `call-${position + 1}`,
        turnId: this.turnIds[index]!,
        server: this.servers[index]!,
        connection: this.connections[index]!,
        tool: this.tools[index]!,
        arguments: this.args[index]!,
        result: isRecord(message.result)
          ? message.result
          : unavailable("the response carried no result object"),
        error: null,
        status: this.statuses[index]!,
        evidence: "wire",
        jsonrpcId: this.jsonrpcIds[index]!,
        startedAt,
        endedAt,
        latencyMs: endedAt - startedAt,
      };
    }
    for (const column of [
      this.positions,
      this.responses,
      this.statuses,
      this.turnIds,
      this.servers,
      this.connections,
      this.tools,
      this.args,
      this.jsonrpcIds,
      this.starts,
      this.ends,
    ]) {
      column.length = 0;
    }
  }
}

/** A message {@link TraceRecorder.recordSoon} keeps until it is recorded. */
interface Soon {
  readonly direction: Direction;
  readonly message: JSONRPCMessage;
  readonly where: Observation;
  readonly text: string;
  readonly keep: ((message: JSONRPCMessage) => JSONRPCMessage) | undefined;
  readonly at: number;
}

function kindOf(message: JSONRPCMessage): MessageKind {
  if ("method" in message) return "id" in message ? "request" : "notification";
  return "error" in message ? "error" : "response";
}

// The markers every call starts with: frozen, so one of each serves every call (three
// frozen objects per call were a measurable part of a direct call's cost, issue 36).
const NO_RESPONSE_YET = unavailable("no response observed yet");
const NOT_ENDED = unavailable("the call has not ended");
// The result of a call answered by a message kept as text, until the trace is read (no
// reader sees it: every way out of the recorder reads the unread messages first).
const NOT_READ_YET = unavailable("the response has not been read yet");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Turns observed JSON-RPC traffic into a {@link Trace}: every message in order, and every
 * `tools/call` paired with its response (per connection, by JSON-RPC id) into a
 * {@link ToolCall}. Shared by the direct client and the wire capture so both produce the
 * same records.
 */
export class TraceRecorder {
  private readonly messages: TraceMessage[] = [];
  /** Messages after {@link TraceRecorder.messages}, kept as text until the trace is read. */
  private readonly unread = new UnreadMessages();
  /** Calls answered by an unread message, until the trace is read. */
  private readonly unreadCalls = new UnreadCalls();
  /** Every call in order; a number stands for an entry of {@link TraceRecorder.unreadCalls}. */
  private readonly calls: (Mutable<ToolCall> | number)[] = [];
  private readonly events: TraceEvent[] = [];
  private readonly gaps: EvidenceGap[] = [];
  private turn: string | null = null;
  /** Calls awaiting a response, by connection then JSON-RPC id. */
  private readonly pending = new Map<string, Map<JsonRpcId, Mutable<ToolCall>>>();
  /**
   * Calls by the tag of the operation that sent them, until {@link TraceRecorder.release}.
   * A Map, not a WeakMap: a weak entry per call cost the garbage collector more than the
   * rest of the recording (issue 36); the operation releases its tag when it ends.
   */
  private readonly tagged = new Map<object, Mutable<ToolCall>>();
  private nextCall = 1;
  /**
   * Messages received and not recorded yet (see {@link TraceRecorder.recordSoon}): recorded,
   * in order and in the turn they arrived in, before anything else this recorder does.
   */
  private readonly soon: Soon[] = [];
  private readonly callWatchers = new Set<(call: ToolCall, phase: "started" | "ended") => void>();

  /**
   * Calls `watcher` when a tool call's request is observed (`started`) and when it ends
   * (`ended`, with its status). For live progress; a watcher must be quick and not throw.
   * Returns a function that stops watching.
   */
  watchCalls(watcher: (call: ToolCall, phase: "started" | "ended") => void): () => void {
    this.recordNow();
    this.callWatchers.add(watcher);
    return () => this.callWatchers.delete(watcher);
  }

  private tell(call: ToolCall, phase: "started" | "ended"): void {
    for (const watcher of this.callWatchers) {
      try {
        watcher({ ...call }, phase);
      } catch {
        // A watcher reports; it must not change what is recorded.
      }
    }
  }

  /**
   * Records a parsed message and updates tool-call records. With `text`, the exact text the
   * message was parsed from or serialised to, and `where.decode`, the trace keeps the text
   * and parses it when first read: `message` must then be what `decode(text)` gives (so
   * nothing to redact in it), and is not kept.
   */
  record(direction: Direction, message: JSONRPCMessage, where: Observation, text?: string): void {
    this.recordNow();
    this.recordAt(direction, message, where, text, where.at ?? monotonicNow());
  }

  /**
   * {@link TraceRecorder.record} for a message received, at the time it arrived, but done
   * when the recorder is next used (any of its methods, a read of the trace included)
   * rather than now: a direct client hands the answer on first, so recording it overlaps
   * with the server's work on the next request instead of delaying it (issue 36). `keep`,
   * if given, gives what is recorded instead of `message` (secrets redacted), and is called
   * then; `text` stands for the message only when `keep` returns `message` itself.
   * With call watchers, or without `text` and `where.decode`, it records at once.
   */
  recordSoon(
    direction: Direction,
    message: JSONRPCMessage,
    where: Observation,
    text: string,
    keep?: (message: JSONRPCMessage) => JSONRPCMessage,
  ): void {
    const at = where.at ?? monotonicNow();
    if (where.decode === undefined || where.origin !== undefined || this.callWatchers.size > 0) {
      this.recordNow();
      const kept = keep?.(message) ?? message;
      this.recordAt(direction, kept, where, kept === message ? text : undefined, at);
      return;
    }
    this.soon.push({ direction, message, where, text, keep, at });
  }

  /** Records every message {@link TraceRecorder.recordSoon} left for later, in order. */
  private recordNow(): void {
    const soon = this.soon;
    if (soon.length === 0) return;
    // Nothing changed the turn since they came: setTurn() records them first.
    for (let index = 0; index < soon.length; index++) {
      const { direction, message, where, text, keep, at } = soon[index]!;
      const kept = keep?.(message) ?? message;
      this.recordAt(direction, kept, where, kept === message ? text : undefined, at);
    }
    soon.length = 0;
  }

  private recordAt(
    direction: Direction,
    message: JSONRPCMessage,
    where: Observation,
    text: string | undefined,
    at: number,
  ): void {
    if (
      text !== undefined &&
      where.decode !== undefined &&
      where.origin === undefined &&
      this.callWatchers.size === 0
    ) {
      const seq = this.messages.length + this.unread.size;
      this.unread.add(direction, kindOf(message), at, this.turn, where, where.decode, text);
      if (direction === "to_server") this.observeRequestSide(message, where, at);
      else this.observeResponseSide(message, where, at, seq);
      return;
    }
    this.readUnread(); // the unread messages come first
    // Built in one literal (same fields, same order as push()): this runs for every message.
    const entry: Mutable<TraceMessage> = {
      seq: this.messages.length,
      server: where.server,
      connection: where.connection,
      direction,
      at,
      turnId: this.turn,
      kind: kindOf(message),
      message,
    };
    if (where.origin) entry.origin = where.origin;
    this.messages.push(entry);
    if (direction === "to_server") this.observeRequestSide(message, where, at);
    else this.observeResponseSide(message, where, at);
  }

  /** Appends a message to the trace, in order and in the current turn; returns its time. */
  private push(
    direction: Direction,
    where: Observation,
    content: Pick<TraceMessage, "kind" | "message" | "raw" | "problem" | "origin">,
  ): number {
    const at = where.at ?? monotonicNow();
    this.readUnread(); // the unread messages come first
    this.messages.push({
      seq: this.messages.length,
      server: where.server,
      connection: where.connection,
      direction,
      at,
      turnId: this.turn,
      ...content,
    });
    return at;
  }

  /**
   * Opens (an id) or closes (`null`) the current turn: messages and calls observed from
   * now on belong to it.
   */
  setTurn(turnId: string | null): void {
    this.recordNow();
    this.turn = turnId;
  }

  /** Records that observation of a connection failed from now on. */
  gap(where: Observation, reason: string): void {
    this.recordNow();
    const at = where.at ?? monotonicNow();
    this.gaps.push({ server: where.server, connection: where.connection, at, reason });
    this.event("channel_lost", reason, where);
  }

  /** Records a line that was not valid JSON-RPC. It is kept verbatim and never dropped. */
  recordMalformed(direction: Direction, raw: string, problem: string, where: Observation): void {
    this.recordNow();
    this.push(direction, where, { kind: "malformed", raw, problem });
    this.event("malformed", `${direction} line is not JSON-RPC: ${problem}`, where);
  }

  /** Records a connection or process event. */
  event(kind: TraceEvent["kind"], detail: string, where: Observation): void {
    this.recordNow();
    this.events.push({
      at: where.at ?? monotonicNow(),
      server: where.server,
      connection: where.connection,
      kind,
      detail,
    });
  }

  /**
   * The connection closed: every call still waiting on it ends with `status`
   * (`transport_error` by default), its result unavailable with `reason`.
   */
  connectionClosed(
    where: Observation,
    reason: string,
    status: ToolCallStatus = "transport_error",
  ): void {
    this.recordNow();
    const at = where.at ?? monotonicNow();
    const waiting = this.pending.get(where.connection);
    if (waiting) {
      for (const call of waiting.values()) {
        this.end(call, status, at, unavailable(reason));
      }
      this.pending.delete(where.connection);
    }
    this.event("closed", reason, where);
  }

  /**
   * Ends the calls among `ids` that still wait for an answer on `connection` (an HTTP
   * request that failed as a whole, say). Calls already answered keep their status.
   */
  endRequests(
    connection: string,
    ids: ReadonlyArray<string | number>,
    status: ToolCallStatus,
    reason: string,
  ): void {
    this.recordNow();
    const waiting = this.pending.get(connection);
    if (!waiting) return;
    const at = monotonicNow();
    for (const id of ids) {
      const call = waiting.get(id);
      if (!call) continue;
      waiting.delete(id);
      this.end(call, status, at, unavailable(reason));
    }
  }

  /**
   * Records a tool call the capture kept from the server without a JSON-RPC answer to pair
   * it with (no id it could answer, or a payload it could not read): `policy_denied`, with
   * what was asked as far as it could be read.
   */
  refused(call: { tool: string; arguments?: unknown }, reason: string, where: Observation): void {
    this.recordNow();
    const at = where.at ?? monotonicNow();
    const args = call.arguments;
    this.calls.push({
      id: `call-${this.nextCall++}`,
      turnId: this.turn,
      server: where.server,
      connection: where.connection,
      tool: call.tool,
      arguments:
        args === undefined
          ? unavailable("the request carried no arguments")
          : isRecord(args)
            ? args
            : unavailable(`arguments were not an object: ${JSON.stringify(args)}`),
      result: unavailable(`refused by the wire capture: ${reason}`),
      error: null,
      status: "policy_denied",
      evidence: "wire",
      jsonrpcId: unavailable("the request had no id the capture could answer"),
      startedAt: at,
      endedAt: at,
      latencyMs: 0,
    });
    this.event("policy_refused", `${call.tool || "(unknown tool)"}: ${reason}`, where);
  }

  /** The call sent under `tag`, if a `tools/call` was recorded with it. */
  callFor(tag: object): ToolCall | undefined {
    this.recordNow();
    const call = this.tagged.get(tag);
    if (call?.result !== NOT_READ_YET) return call;
    // Answered and kept as columns: the call as the trace now holds it.
    this.readUnread();
    return this.calls[Number(call.id.slice("call-".length)) - 1] as ToolCall;
  }

  /** Forgets the tag of an operation that has ended (the call stays recorded). */
  release(tag: object): void {
    this.recordNow();
    this.tagged.delete(tag);
  }

  /**
   * Ends the call sent under `tag` with `status` (a timeout or a cancellation the caller
   * decided on). Calls that already ended keep their status.
   */
  settleTagged(tag: object, status: ToolCallStatus, reason: string): void {
    this.recordNow();
    const call = this.tagged.get(tag);
    if (!call) return;
    if (call.status === "cancelled") {
      // The client cancelled because of this timeout: same end, more precise status.
      call.status = status;
      call.result = unavailable(reason);
      return;
    }
    if (call.status !== "incomplete" || isUnavailable(call.jsonrpcId)) return;
    this.pending.get(call.connection)?.delete(call.jsonrpcId);
    this.end(call, status, monotonicNow(), unavailable(reason));
  }

  /** A copy of everything recorded so far. Calls without a response stay `incomplete`. */
  snapshot(): Trace {
    this.recordNow();
    this.readUnread();
    return {
      messages: this.messages.slice(),
      toolCalls: (this.calls as Mutable<ToolCall>[]).map((call) => ({ ...call })),
      events: this.events.slice(),
      gaps: this.gaps.slice(),
    };
  }

  /** Parses every message still kept as text (each once) and the results they carry. */
  private readUnread(): void {
    if (this.unread.size === 0 && this.unreadCalls.size === 0) return;
    const messages = this.messages;
    this.unread.readInto(messages);
    this.unreadCalls.readInto(this.calls, messages);
  }

  private observeRequestSide(message: JSONRPCMessage, where: Observation, at: number): void {
    if (!("method" in message)) return;
    if (message.method === "tools/call" && "id" in message) {
      const params = isRecord(message.params) ? message.params : {};
      const args = params.arguments;
      const call: Mutable<ToolCall> = {
        id: `call-${this.nextCall++}`,
        turnId: this.turn,
        server: where.server,
        connection: where.connection,
        tool: typeof params.name === "string" ? params.name : "",
        arguments:
          args === undefined
            ? unavailable("the request carried no arguments")
            : isRecord(args)
              ? args
              : unavailable(`arguments were not an object: ${JSON.stringify(args)}`),
        result: NO_RESPONSE_YET,
        error: null,
        status: "incomplete",
        evidence: "wire",
        jsonrpcId: message.id,
        startedAt: at,
        endedAt: NOT_ENDED,
        latencyMs: NOT_ENDED,
      };
      this.calls.push(call);
      let waiting = this.pending.get(where.connection);
      if (!waiting) this.pending.set(where.connection, (waiting = new Map()));
      waiting.set(message.id, call);
      if (where.tag) this.tagged.set(where.tag, call);
      this.tell(call, "started");
    } else if (message.method === "notifications/cancelled" && isRecord(message.params)) {
      const requestId = message.params.requestId;
      if (typeof requestId !== "string" && typeof requestId !== "number") return;
      const call = this.pending.get(where.connection)?.get(requestId);
      if (!call) return;
      const reason = message.params.reason;
      this.pending.get(where.connection)?.delete(requestId);
      this.end(
        call,
        "cancelled",
        at,
        unavailable(`cancelled by the client${typeof reason === "string" ? `: ${reason}` : ""}`),
      );
    }
  }

  /** `unread`: the seq of the message when it is kept as text, else -1. */
  private observeResponseSide(
    message: JSONRPCMessage,
    where: Observation,
    at: number,
    unread = -1,
  ): void {
    if ("method" in message || !("id" in message)) return;
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") return;
    const waiting = this.pending.get(where.connection);
    const call = waiting?.get(id);
    if (!call || !waiting) return;
    waiting.delete(id);
    if ("error" in message) {
      const error = message.error as JsonRpcErrorValue;
      call.error = { code: error.code, message: error.message, data: error.data };
      if (where.origin === "policy") {
        this.end(
          call,
          "policy_denied",
          at,
          unavailable(`denied by the test's tool policy: ${error.message}`),
        );
        return;
      }
      this.end(
        call,
        "protocol_error",
        at,
        unavailable(`the server answered with JSON-RPC error ${error.code}: ${error.message}`),
      );
      return;
    }
    const result = (message as { result?: unknown }).result;
    if (!isRecord(result)) {
      this.end(call, "protocol_error", at, unavailable("the response carried no result object"));
      return;
    }
    const status = result.isError === true ? "tool_error" : "success";
    if (unread < 0) {
      this.end(call, status, at, result);
      return;
    }
    // Kept as columns and built again, its result from the kept text, when the trace is
    // read; no watcher is waiting on it (record() keeps text only while no one watches
    // calls). The object stays only as its operation's tag until released: ended.
    const position = Number(call.id.slice("call-".length)) - 1;
    this.calls[position] = this.unreadCalls.add(position, call, status, unread, at);
    call.status = status;
    call.result = NOT_READ_YET;
  }

  private end(
    call: Mutable<ToolCall>,
    status: ToolCallStatus,
    at: number,
    result: Record<string, unknown> | Unavailable,
  ): void {
    call.status = status;
    call.result = result;
    call.endedAt = at;
    call.latencyMs = isUnavailable(call.startedAt) ? call.startedAt : at - call.startedAt;
    this.tell(call, "ended");
  }
}
