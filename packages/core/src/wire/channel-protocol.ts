/**
 * Frames on the channel between a stdio relay and the kit: newline-delimited JSON, one
 * frame per line. Relay → kit: `hello`, `msg`, `refused`, `stderr`, `exit`, `ack`. Kit →
 * relay: `flush`.
 */
import type { Direction } from "../evidence/trace.js";
import { parseJsonText, type JsonText } from "./json-rpc.js";

/** The relay has connected: who it is. */
export interface HelloFrame {
  readonly t: "hello";
  readonly server: string;
  readonly relayPid: number;
  readonly serverPid: number | null;
  /** The native relay: the socket of the spare it took, a server started ahead of the session (spare-servers.ts). */
  readonly spare?: string;
  /** The native relay: the process that started the relay (the agent, usually). */
  readonly ppid?: number;
  /** The native relay: the server's working folder. */
  readonly cwd?: string;
  /** The native relay: the inherited (allow-listed) part of the server's environment. */
  readonly inherited?: Readonly<Record<string, string>>;
}

/** One line that crossed the relay, verbatim. */
export interface MessageFrame {
  readonly t: "msg";
  readonly d: Direction;
  readonly at: number;
  readonly raw: string;
  /** `policy` for an error the relay answered itself because the tool is not allowed. */
  readonly origin?: "policy";
  /** The line was not valid UTF-8: `raw` is its bytes in base64, kept as they were. */
  readonly invalidUtf8?: true;
}

/** A client line the relay kept from the server under the allow-list (see {@link vouchFor}). */
export interface RefusedFrame {
  readonly t: "refused";
  readonly at: number;
  readonly reason: string;
  /** The tool calls found in it (none when it could not be read). */
  readonly calls: readonly RefusedCall[];
}

/** Some of the server's stderr (mirrored up to a bound; the rest only passes through). */
export interface StderrFrame {
  readonly t: "stderr";
  readonly at: number;
  readonly data: string;
}

/** The server process ended. */
export interface ExitFrame {
  readonly t: "exit";
  readonly at: number;
  readonly code: number | null;
  readonly signal: string | null;
  readonly stderrTail: string;
  /** Why the server ended, from the relay's side. */
  readonly cause: "server_exited" | "client_closed" | "spawn_failed";
  readonly detail?: string;
}

/** Everything mirrored before the flush with this token has been written. */
export interface AckFrame {
  readonly t: "ack";
  readonly token: number;
}

export type RelayFrame =
  HelloFrame | MessageFrame | RefusedFrame | StderrFrame | ExitFrame | AckFrame;

/** Asks the relay to acknowledge once everything it mirrored so far is on the channel. */
export interface FlushFrame {
  readonly t: "flush";
  readonly token: number;
}

/** The JSON-RPC error code the capture answers a denied tool call with. */
export const POLICY_DENIED_CODE = -32001;

/** The JSON-RPC error message for a tool the test's policy does not allow. */
export function policyDeniedMessage(server: string, tool: string): string {
  return (
    `Tool "${tool}" on server "${server}" is denied by the test's tool policy ` +
    `(not in the session's allow-list). The call did not reach the server.`
  );
}

/** True when a JSON-RPC error message is the capture's answer to a tool outside the allow-list. */
export function isPolicyDenialMessage(message: string): boolean {
  return message.includes("is denied by the test's tool policy");
}

/** A JSON-RPC error answer, as the capture sends it. */
export interface PolicyErrorReply {
  readonly jsonrpc: "2.0";
  readonly id: string | number;
  readonly error: { readonly code: number; readonly message: string };
}

function toolCallOf(item: unknown): { id: string | number | undefined; tool: string } | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const { method, id, params } = item as {
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown };
  };
  if (method !== "tools/call") return undefined;
  return {
    id: typeof id === "string" || typeof id === "number" ? id : undefined,
    tool: typeof params?.name === "string" ? params.name : "",
  };
}

/**
 * The capture's answer to a client→server message (already parsed; a single message or a
 * batch) when it calls a tool outside the allow-list, or undefined to forward it. A batch
 * with a denied call is refused whole: nothing of it reaches the server, and each request
 * in it gets an error saying why.
 */
export function policyRefusal(
  value: unknown,
  allowed: ReadonlySet<string> | undefined,
  server: string,
): PolicyErrorReply | PolicyErrorReply[] | undefined {
  if (!allowed) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const denied = items
    .map(toolCallOf)
    .filter(
      (call): call is { id: string | number | undefined; tool: string } =>
        call !== undefined && !allowed.has(call.tool),
    );
  if (denied.length === 0) return undefined;
  const replies = items.flatMap((item): PolicyErrorReply[] => {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== "string" && typeof id !== "number") return [];
    const call = toolCallOf(item);
    const message =
      call && !allowed.has(call.tool)
        ? policyDeniedMessage(server, call.tool)
        : `Refused: this JSON-RPC batch also calls a tool the test's tool policy denies, so none of it was sent to server "${server}".`;
    return [{ jsonrpc: "2.0", id, error: { code: POLICY_DENIED_CODE, message } }];
  });
  return Array.isArray(value) ? replies : replies[0];
}

/** A tool call the capture refused: what was asked, as far as it could be read. */
export interface RefusedCall {
  readonly tool: string;
  /** The arguments as sent; absent when the call carried none or could not be read. */
  readonly arguments?: unknown;
}

/** What the capture does with one client payload while an allow-list is active. */
export type PolicyVerdict =
  | { readonly forward: true }
  | {
      readonly forward: false;
      /** Why it was kept from the server. */
      readonly reason: string;
      /** The JSON-RPC answer to send back, when there is an id to answer. */
      readonly reply: PolicyErrorReply | PolicyErrorReply[] | undefined;
      /** Every tool call in it, to record as `policy_denied`. */
      readonly calls: readonly RefusedCall[];
    };

/**
 * Characters some servers split lines on (Python's `str.splitlines`, Node's readline) but
 * a JSON-RPC-over-stdio reader must not: a payload carrying one raw could hide a second
 * message behind a harmless first.
 */
// eslint-disable-next-line no-control-regex -- these control characters are exactly what some servers split lines on
const LINE_SEPARATORS = /[\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/;

function readCall(item: unknown): RefusedCall | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const { method, params } = item as { method?: unknown; params?: unknown };
  if (method !== "tools/call") return undefined;
  const record =
    typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
  return {
    tool: typeof record.name === "string" ? record.name : "",
    ...("arguments" in record ? { arguments: record.arguments } : {}),
  };
}

/**
 * Tool calls in a payload the capture could not read as one message, each fragment tried:
 * what a server that splits or decodes differently might have run.
 */
export function callsInFragments(text: string): RefusedCall[] {
  return text.split(LINE_SEPARATORS).flatMap((fragment) => {
    const start = fragment.search(/[[{]/);
    if (start < 0) return [];
    try {
      const value: unknown = JSON.parse(fragment.slice(start));
      return (Array.isArray(value) ? value : [value])
        .map(readCall)
        .filter((call) => call !== undefined);
    } catch {
      return [];
    }
  });
}

/**
 * The one allow-list rule of the wire capture (the stdio relay and the HTTP proxy both use
 * it): with a policy active, a payload reaches the server only when the capture can vouch
 * for it. It must be one JSON text (a message or a batch) with no raw line separator a
 * server might split on, and every `tools/call` in it must name an allowed tool and carry
 * an id the capture can answer. Anything else is refused; refused calls are reported so
 * the trace records them.
 *
 * @param json - `text` already parsed, when the caller parsed it (the HTTP proxy does, once).
 */
export function vouchFor(
  text: string,
  allowed: ReadonlySet<string> | undefined,
  server: string,
  json?: JsonText,
): PolicyVerdict {
  if (!allowed) return { forward: true };
  const parsed = json ?? parseJsonText(text);
  if (!parsed.ok) {
    return {
      forward: false,
      reason: LINE_SEPARATORS.test(text)
        ? "the payload holds a raw line separator (CR, VT, FF, U+2028...) that a server may split on"
        : `the payload is not JSON (${parsed.error.message}), so the capture cannot tell whether it calls a tool`,
      reply: undefined,
      calls: callsInFragments(text),
    };
  }
  const value = parsed.value;
  const items = Array.isArray(value) ? value : [value];
  // Calls with an answerable id are recorded from the message and the capture's answer;
  // the others only exist in the trace if the refusal reports them.
  const unanswerable = items.flatMap((item) => {
    const call = readCall(item);
    const id = (item as { id?: unknown } | null)?.id;
    return call && typeof id !== "string" && typeof id !== "number" ? [call] : [];
  });
  const separator = LINE_SEPARATORS.test(text);
  if (separator || unanswerable.length > 0) {
    const reason = separator
      ? "the payload holds a raw line separator (CR, VT, FF, U+2028...) that a server may split on"
      : "a tools/call carries no id the capture can answer (absent, null, or not a string or number)";
    return {
      forward: false,
      reason,
      reply: answerEach(value, server, reason),
      calls: unanswerable,
    };
  }
  const reply = policyRefusal(value, allowed, server);
  if (reply === undefined) return { forward: true };
  return { forward: false, reason: "a tool outside the allow-list", reply, calls: [] };
}

/** An error answer to every request of a refused payload (so no client waits forever). */
function answerEach(
  value: unknown,
  server: string,
  reason: string,
): PolicyErrorReply | PolicyErrorReply[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  const replies = items.flatMap((item): PolicyErrorReply[] => {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== "string" && typeof id !== "number") return [];
    const call = readCall(item);
    const message = call
      ? policyDeniedMessage(server, call.tool)
      : `Refused by the test's wire capture: ${reason}. Nothing of it was sent to server "${server}".`;
    return [{ jsonrpc: "2.0", id, error: { code: POLICY_DENIED_CODE, message } }];
  });
  if (replies.length === 0) return undefined;
  return Array.isArray(value) ? replies : replies[0];
}
