/**
 * Frames on the channel between a stdio relay and the kit: newline-delimited JSON, one
 * frame per line. Relay → kit: `hello`, `msg`, `stderr`, `exit`, `ack`. Kit → relay:
 * `flush`.
 */
import type { Direction } from "../evidence/trace.js";

/** The relay has connected: who it is. */
export interface HelloFrame {
  readonly t: "hello";
  readonly server: string;
  readonly relayPid: number;
  readonly serverPid: number | null;
}

/** One line that crossed the relay, verbatim. */
export interface MessageFrame {
  readonly t: "msg";
  readonly d: Direction;
  readonly at: number;
  readonly raw: string;
  /** `policy` for an error the relay answered itself because the tool is not allowed. */
  readonly origin?: "policy";
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

export type RelayFrame = HelloFrame | MessageFrame | StderrFrame | ExitFrame | AckFrame;

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
