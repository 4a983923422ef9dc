/**
 * The loopback HTTP server every mode shares: listening on 127.0.0.1, reading requests,
 * writing SSE and error responses, delays, and closing everything it opened.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Decision } from "./decision";
import { ServerStartFailed } from "./errors";
import { Journal, redactHeaders, type JournalConversation } from "./journal";
import { encodeSse, errorBody, type SseEvent } from "./responses-stream";
import { describe, isPlainObject } from "./script";

/**
 * A model provider as an agent harness needs it: hand it to a harness selection
 * (`kit.agents([{ harness: "codex", models: ["scripted"], provider: model.provider }])`).
 * For Codex this becomes `[model_providers.<name>] base_url, wire_api = "responses"`.
 */
export interface ScriptedProvider {
  /** The provider's name (a config key for the agent), `"scripted"` unless chosen. */
  name: string;
  /** The Responses API base URL, `http://127.0.0.1:<port>/v1`; requests go to `<baseUrl>/responses`. */
  baseUrl: string;
  /** The wire protocol: always the OpenAI Responses API. */
  wireApi: "responses";
}

/** A running model server (scripted, recording or replaying). */
export interface ScriptedModel {
  /** The provider to give an agent. */
  readonly provider: ScriptedProvider;
  /** Every request received so far, with the decision taken. */
  readonly journal: Journal;
  /** The server's origin, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /**
   * Stops the server: open streams (including hanging ones) are cut, and recordings are saved.
   * Safe to call more than once.
   */
  close(): Promise<void>;
  /** Same as {@link ScriptedModel.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options every model server accepts. */
export interface ServerOptions {
  /** The port on 127.0.0.1; any free port when omitted or 0. */
  port?: number;
  /** The provider name; `"scripted"` when omitted. */
  name?: string;
}

/** A request as the mode handlers see it. @internal */
export interface ModelRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body bytes, unchanged. */
  raw: Buffer;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
  /** Aborts when the client goes away or the server closes. */
  signal: AbortSignal;
}

/** What a mode handler gets to answer with. @internal */
export interface Answer {
  journal: Journal;
  response: ServerResponse;
  /** Adds the journal entry for this request. */
  record(entry: {
    decision: Decision;
    status: number;
    conversation?: JournalConversation | null;
    delayMs?: number;
    problem?: string;
  }): void;
}

/** A mode: answers one request (journal entry included). @internal */
export type ModeHandler = (request: ModelRequest, answer: Answer) => Promise<void>;

/** Whether a request is one the model server serves (`POST …/responses`). @internal */
export function isResponsesRequest(request: ModelRequest): boolean {
  return request.method === "POST" && /\/responses\/?$/.test(request.path.split("?")[0] ?? "");
}

/** Starts a server for a mode handler. @internal */
export async function serve(
  handler: ModeHandler,
  options: ServerOptions,
  onClose?: () => void | Promise<void>,
): Promise<ScriptedModel> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ServerStartFailed(port, `the port must be an integer 0…65535`);
  }
  const journal = new Journal();
  const closing = new AbortController();
  const pending = new Set<Promise<void>>();

  const server = createServer((req, res) => {
    const done = handle(req, res).finally(() => pending.delete(done));
    pending.add(done);
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return;
    }
    const raw = Buffer.concat(chunks);
    const client = new AbortController();
    const abort = () => client.abort();
    res.on("close", abort);
    closing.signal.addEventListener("abort", abort, { once: true });
    const request: ModelRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: redactHeaders(req.headers),
      raw,
      json: parseJson(raw),
      signal: client.signal,
    };
    const answer: Answer = {
      journal,
      response: res,
      record(entry) {
        journal.add({
          at: new Date().toISOString(),
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.json === undefined ? raw.toString("utf8") : request.json,
          conversation: entry.conversation ?? null,
          decision: entry.decision,
          status: entry.status,
          delayMs: entry.delayMs ?? 0,
          problem: entry.problem,
        });
      },
    };
    try {
      if (!isResponsesRequest(request)) {
        const message = `The scripted model serves POST <baseUrl>/responses only; got ${request.method} ${request.path}.`;
        answer.record({
          decision: { kind: "rejected", status: 404, message },
          status: 404,
          problem: message,
        });
        sendError(res, 404, message, "not_found");
      } else if (!isPlainObject(request.json)) {
        const message = `The request body is not a JSON object; a Responses API request is expected.`;
        answer.record({
          decision: { kind: "rejected", status: 400, message },
          status: 400,
          problem: message,
        });
        sendError(res, 400, message, "invalid_json");
      } else {
        await handler(request, answer);
      }
    } catch (error) {
      if (!res.headersSent)
        sendError(res, 500, `Scripted model failure: ${describe(error)}`, "server_error");
      else res.destroy();
    } finally {
      res.off("close", abort);
      closing.signal.removeEventListener("abort", abort);
    }
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ServerStartFailed(
      port,
      code === "EADDRINUSE" ? "the port is already in use" : describe(error),
      { cause: error },
    );
  }
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${actualPort}`;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing.abort();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
      await Promise.allSettled([...pending]);
      await onClose?.();
    })();
    return closed;
  };

  return {
    provider: { name: options.name ?? "scripted", baseUrl: `${url}/v1`, wireApi: "responses" },
    journal,
    url,
    port: actualPort,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Sends an OpenAI-style JSON error. @internal */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code?: string,
  retryAfter?: string,
) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    "content-type": "application/json",
    ...(retryAfter === undefined ? {} : { "retry-after": retryAfter }),
  });
  res.end(errorBody(status, message, code));
}

/** Starts an SSE response. @internal */
export function startStream(res: ServerResponse, status = 200) {
  res.writeHead(status, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
}

/** Writes SSE events. @internal */
export function writeEvents(res: ServerResponse, events: SseEvent[]) {
  if (res.destroyed || res.writableEnded) return;
  res.write(events.map(encodeSse).join(""));
}

/** Resolves after `ms`, or earlier when `signal` aborts. @internal */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Resolves when `signal` aborts. @internal */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return undefined;
  }
}
