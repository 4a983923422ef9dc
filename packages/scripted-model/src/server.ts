/**
 * The loopback HTTP server every mode shares: listening on 127.0.0.1, reading requests,
 * writing SSE and error responses, delays, and closing everything it opened.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Decision } from "./decision";
import {
  PROVIDER_DIALECTS,
  type Dialect,
  type ProviderDialect,
  type Rendered,
  type Route,
} from "./dialects/dialect";
import { DIALECTS, describeDialect } from "./dialects";
import { responses } from "./dialects/responses";
import { ScriptedModelError, ServerStartFailed } from "./errors";
import { Journal, JOURNAL_SECRETS_PATH, redactHeaders, type JournalConversation } from "./journal";
import { encodeSse, errorBody, type SseEvent } from "./responses-stream";
import { describe, isPlainObject, type ScriptedUsage } from "./script";

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

/**
 * The provider for one dialect: `{ name, baseUrl, wireApi }`, structurally a core
 * `ModelProvider`. `baseUrl` is what the vendor's own SDK takes: `http://127.0.0.1:<port>/v1`
 * for `responses` and `chat-completions`, `http://127.0.0.1:<port>` (no version path) for
 * `anthropic-messages` and `gemini`.
 */
export interface DialectProvider<D extends ProviderDialect = ProviderDialect> {
  /** The provider's name, `"scripted"` unless chosen. */
  name: string;
  /** The base URL the vendor's SDK takes. */
  baseUrl: string;
  /** The dialect (wire API) this provider speaks. */
  wireApi: D;
}

/** A running model server (scripted, recording or replaying). */
export interface ScriptedModel {
  /** The Responses provider to give an agent (same as `providerFor("responses")`). */
  readonly provider: ScriptedProvider;
  /**
   * The provider for any dialect; the same server answers all of them on one port.
   *
   * @example
   * ```ts
   * const claude = model.providerFor("anthropic-messages"); // baseUrl http://127.0.0.1:PORT
   * ```
   */
  providerFor<D extends ProviderDialect>(dialect: D): DialectProvider<D>;
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
  /** The dialect whose route this is. */
  dialect: Dialect;
  /** The route within the dialect. */
  route: Route;
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
    /** The usage the script set for the answer, if it set one. */
    usage?: ScriptedUsage | undefined;
  }): void;
  /** Writes a rendered response (and holds a hanging one open until the request aborts). */
  send(rendered: Rendered): Promise<void>;
}

/** A mode: answers one request (journal entry included). @internal */
export type ModeHandler = (request: ModelRequest, answer: Answer) => Promise<void>;

/** The dialect and route of a request, or `null` when no dialect serves it. @internal */
export function routeOf(method: string, path: string): { dialect: Dialect; route: Route } | null {
  const url = new URL(path, "http://127.0.0.1");
  for (const dialect of DIALECTS) {
    const route = dialect.route(method, url.pathname, url.searchParams);
    if (route !== null) return { dialect, route };
  }
  return null;
}

/** Remembers the secrets a test runner sent (see {@link JOURNAL_SECRETS_PATH}). */
function takeSecrets(journal: Journal, raw: Buffer, res: ServerResponse): void {
  const body = parseJson(raw) as { secrets?: unknown } | undefined;
  const secrets = Array.isArray(body?.secrets) ? (body.secrets as unknown[]) : null;
  if (secrets === null) {
    res.writeHead(400, { "content-type": "text/plain" }).end('expected {"secrets": [...]}');
    return;
  }
  for (const secret of secrets) {
    const { name, value } = (secret ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name === "string" && typeof value === "string") journal.addSecret(name, value);
  }
  res.writeHead(204).end();
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
    if (req.method === "POST" && req.url === JOURNAL_SECRETS_PATH) {
      takeSecrets(journal, raw, res);
      return;
    }
    const client = new AbortController();
    const abort = () => client.abort();
    res.on("close", abort);
    closing.signal.addEventListener("abort", abort, { once: true });
    const routed = routeOf(req.method ?? "GET", req.url ?? "/");
    const request: ModelRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: redactHeaders(req.headers),
      raw,
      json: parseJson(raw),
      signal: client.signal,
      dialect: routed?.dialect ?? responses,
      route: routed?.route ?? { kind: "main", stream: null, model: null },
    };
    const answer: Answer = {
      journal,
      response: res,
      record(entry) {
        journal.add({
          at: new Date().toISOString(),
          method: request.method,
          path: request.path,
          dialect: routed === null ? null : request.dialect.name,
          side: entry.decision.kind === "side",
          headers: request.headers,
          body: request.json === undefined ? raw.toString("utf8") : request.json,
          conversation: entry.conversation ?? null,
          decision: entry.decision,
          status: entry.status,
          delayMs: entry.delayMs ?? 0,
          problem: entry.problem,
          ...(entry.usage === undefined ? {} : { usage: entry.usage }),
        });
      },
      send: (rendered) => send(res, rendered, request.signal),
    };
    try {
      if (routed === null) {
        const served = DIALECTS.flatMap((d) => d.routes).join(", ");
        const message = `The scripted model does not serve ${request.method} ${request.path}; it serves ${served}.`;
        answer.record({
          decision: { kind: "rejected", status: 404, message },
          status: 404,
          problem: message,
        });
        sendError(res, 404, message, "not_found");
      } else if (request.method === "POST" && !isPlainObject(request.json)) {
        const message = `The request body is not a JSON object; ${describeDialect(request.dialect.name)} request is expected.`;
        answer.record({
          decision: { kind: "rejected", status: 400, message },
          status: 400,
          problem: message,
        });
        await answer.send(request.dialect.error(400, message, "invalid_json"));
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
    providerFor<D extends ProviderDialect>(dialect: D): DialectProvider<D> {
      const found = DIALECTS.find((d) => d.name === dialect);
      if (found === undefined) {
        throw new ScriptedModelError(
          `Unknown provider dialect ${JSON.stringify(dialect)}; the scripted model speaks ` +
            `${PROVIDER_DIALECTS.join(", ")}.`,
        );
      }
      return { name: options.name ?? "scripted", baseUrl: found.baseUrl(url), wireApi: dialect };
    },
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

/** Writes a rendered response; a hanging one stays open until `signal` aborts. @internal */
export async function send(res: ServerResponse, rendered: Rendered, signal: AbortSignal) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(rendered.status, rendered.headers);
  res.flushHeaders();
  const body = rendered.chunks.join("");
  if (body.length > 0) res.write(body);
  if (rendered.then === "end") res.end();
  else if (rendered.then === "destroy") {
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    res.destroy();
  } else {
    await untilAborted(signal);
    res.destroy();
  }
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
