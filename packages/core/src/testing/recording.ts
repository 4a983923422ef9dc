import { mkdtempSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingError } from "../errors.js";
import type { Trace } from "../evidence/trace.js";
import type { StdioServer } from "../servers/spec.js";

/** One request the client sent, and what the server answered (with the notifications on the way). */
export interface RecordedExchange {
  readonly method: string;
  /** The request's params, without `_meta` (progress tokens and ids differ per run). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** The result, for an answered request. */
  readonly result?: unknown;
  /** The JSON-RPC error, for a failed one. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** Notifications the server sent while the request was open (progress, log messages). */
  readonly notifications?: ReadonlyArray<{ readonly method: string; readonly params?: unknown }>;
}

/** MCP traffic with one server, recorded so it can be replayed as a server. */
export interface Recording {
  readonly version: 1;
  /** The server's name, as the trace had it. */
  readonly server: string;
  readonly exchanges: readonly RecordedExchange[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Makes a {@link Recording} from a trace's wire messages with one server: every request the
 * client sent that was answered, in order. Works on a direct client's trace and on an
 * agent session's (the harness's traffic as the wire capture saw it).
 *
 * @example
 * ```ts
 * await client.close();
 * const recording = recordingFromTrace(client.finalTrace);
 * await saveRecording(recording, join(dir, "everything.json"));
 * ```
 */
export function recordingFromTrace(
  trace: Trace,
  options: { readonly server?: string } = {},
): Recording {
  const servers = [...new Set(trace.messages.map((entry) => entry.server))];
  const server = options.server ?? servers[0];
  if (server === undefined)
    throw new RecordingError("recordingFromTrace(): the trace has no messages to record.");
  if (options.server === undefined && servers.length > 1) {
    throw new RecordingError(
      `recordingFromTrace(): the trace has traffic with ${servers.length} servers (${servers.join(", ")}); pass { server } to pick one.`,
    );
  }
  if (!servers.includes(server)) {
    throw new RecordingError(
      `recordingFromTrace(): the trace has no traffic with server "${server}" (it has: ${servers.join(", ") || "none"}).`,
    );
  }
  type Open = {
    exchange: {
      method: string;
      params?: Record<string, unknown>;
      notifications: Array<{ method: string; params?: unknown }>;
    };
    done?: RecordedExchange;
  };
  const order: Open[] = [];
  const open = new Map<string, Open>();
  for (const entry of trace.messages) {
    if (entry.server !== server || !entry.message) continue;
    const message = entry.message as Record<string, unknown>;
    const id = message.id;
    if (entry.direction === "to_server" && typeof message.method === "string" && id !== undefined) {
      const params = isRecord(message.params) ? { ...message.params } : undefined;
      if (params) delete params._meta;
      const record: Open = {
        exchange: {
          method: message.method,
          ...(params && Object.keys(params).length ? { params } : {}),
          notifications: [],
        },
      };
      order.push(record);
      open.set(`${entry.connection}\u0000${JSON.stringify(id)}`, record);
    } else if (
      entry.direction === "from_server" &&
      typeof message.method === "string" &&
      id === undefined
    ) {
      for (const record of open.values()) {
        record.exchange.notifications.push({
          method: message.method,
          ...(message.params === undefined ? {} : { params: message.params }),
        });
      }
    } else if (
      entry.direction === "from_server" &&
      typeof message.method !== "string" &&
      id !== undefined
    ) {
      const key = `${entry.connection}\u0000${JSON.stringify(id)}`;
      const record = open.get(key);
      if (!record) continue;
      open.delete(key);
      const { notifications, ...rest } = record.exchange;
      record.done = {
        ...rest,
        ...("error" in message
          ? { error: message.error as RecordedExchange["error"] & object }
          : { result: message.result }),
        ...(notifications.length ? { notifications } : {}),
      };
    }
  }
  return {
    version: 1,
    server,
    exchanges: order.flatMap((record) => (record.done ? [record.done] : [])),
  };
}

/**
 * Writes a recording as JSON.
 *
 * @example
 * ```ts
 * await saveRecording(recordingFromTrace(client.finalTrace), "recordings/weather.json");
 * ```
 */
export async function saveRecording(recording: Recording, path: string): Promise<void> {
  await writeFile(path, JSON.stringify(recording, null, 2) + "\n");
}

/**
 * Reads a recording written by {@link saveRecording}; a file that is not one throws {@link RecordingError}.
 *
 * @example
 * ```ts
 * const recording = await loadRecording("recordings/weather.json");
 * expect(recording.exchanges.length).toBeGreaterThan(0);
 * ```
 */
export async function loadRecording(path: string): Promise<Recording> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new RecordingError(`loadRecording(): cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseRecording(text, path);
}

/** @internal Parses and checks a recording's JSON. */
export function parseRecording(text: string, source: string): Recording {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (
    !isRecord(value) ||
    value.version !== 1 ||
    typeof value.server !== "string" ||
    !Array.isArray(value.exchanges)
  ) {
    throw new RecordingError(
      `${source} is not a jest-m3 recording (expected { version: 1, server, exchanges: [...] }).`,
    );
  }
  value.exchanges.forEach((exchange: unknown, index: number) => {
    if (
      !isRecord(exchange) ||
      typeof exchange.method !== "string" ||
      (!("result" in exchange) && !isRecord(exchange.error))
    ) {
      throw new RecordingError(
        `${source}: exchanges[${index}] must be { method, params?, result | error }.`,
      );
    }
  });
  return value as unknown as Recording;
}

/**
 * A stdio server spec that replays a recording: each request is answered with the recorded
 * answer to the same method and params (in recorded order; a request repeated more often
 * than recorded gets the last answer again). A request the recording lacks gets a JSON-RPC
 * error that says so (`M3_REPLAY_MISSING` in its data), never a hang.
 *
 * @example
 * ```ts
 * const client = kit.direct(replayServer(recording));
 * expect(await client.callTool("echo", { message: "hi" })).toEqual({ content: [{ type: "text", text: "Echo: hi" }] });
 * ```
 */
export function replayServer(
  source: Recording | string,
  options: { readonly name?: string } = {},
): StdioServer {
  let path: string;
  let name: string;
  if (typeof source === "string") {
    path = source;
    name = options.name ?? "replay";
  } else {
    parseRecording(JSON.stringify(source), "replayServer(recording)");
    path = join(mkdtempSync(join(tmpdir(), "m3-replay-")), "recording.json");
    writeFileSync(path, JSON.stringify(source));
    name = options.name ?? source.server;
  }
  return { name, command: process.execPath, args: [join(__dirname, "replay-server.js"), path] };
}
