import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { StringDecoder } from "node:string_decoder";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { monotonicNow } from "../evidence/clock.js";
import type { TraceRecorder } from "../evidence/recorder.js";
import { messagesOf, parseJsonText, type JsonText } from "./json-rpc.js";
import { vouchFor, type RefusedCall } from "./channel-protocol.js";
import { isUtf8 } from "node:buffer";
import { redactHeaders } from "./redaction.js";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
]);

/**
 * A loopback reverse proxy in front of one Streamable HTTP MCP server: forwards every
 * request and response (JSON and SSE, session headers included) unchanged, records every
 * JSON-RPC message in both directions, and answers denied tool calls itself.
 */
export class HttpCaptureProxy {
  private server: Server | undefined;
  private connections = 0;
  private readonly sessions = new Map<string, string>();
  private readonly seenHeaders = new Set<string>();

  constructor(
    private readonly name: string,
    private readonly upstream: URL,
    private readonly recorder: TraceRecorder,
    private readonly allowed: ReadonlySet<string> | undefined,
    /** The spec's headers (credentials, say): added here, so the harness never holds them. */
    private readonly upstreamHeaders: Readonly<Record<string, string>> = {},
  ) {}

  /** Starts listening on 127.0.0.1; resolves with the URL to give the harness. */
  async listen(): Promise<URL> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(`jest-m3 capture proxy: ${(error as Error).message}`);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const url = new URL(this.upstream.toString());
    url.protocol = "http:";
    url.hostname = "127.0.0.1";
    url.port = String(port);
    url.username = "";
    url.password = "";
    return url;
  }

  /** Stops listening and drops open streams. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private connectionOf(sessionId: string | undefined): string {
    if (!sessionId) return `${this.name}#http-${++this.connections}`;
    let connection = this.sessions.get(sessionId);
    if (!connection) {
      connection = `${this.name}#http-${++this.connections}`;
      this.sessions.set(sessionId, connection);
    }
    return connection;
  }

  /** Records a body's messages; `json` is `text` parsed (once, by the caller). */
  private recordBody(
    direction: "to_server" | "from_server",
    text: string,
    connection: string,
    at: number,
    json: JsonText = parseJsonText(text),
  ): void {
    const where = { server: this.name, connection, at };
    for (const parsed of messagesOf(json)) {
      if (parsed.ok) this.recorder.record(direction, parsed.message, where);
      else this.recorder.recordMalformed(direction, text, parsed.problem, where);
    }
  }

  /** Why the body cannot be read as the UTF-8 JSON a server would read, or undefined. */
  private undecodable(req: IncomingMessage, body: Buffer): string | undefined {
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
      return `it is sent with Content-Encoding ${JSON.stringify(encoding)}`;
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      return `it declares charset ${JSON.stringify(charset)}, not UTF-8`;
    }
    if (!isUtf8(body)) return "it is not valid UTF-8";
    if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf)
      return "it starts with a UTF-8 byte order mark";
    return undefined;
  }

  /** Keeps a request from the server: answers 400 with a JSON-RPC error, records why. */
  private refuse(
    res: ServerResponse,
    connection: string,
    reason: string,
    calls: readonly RefusedCall[],
  ): void {
    const where = { server: this.name, connection };
    if (calls.length === 0) this.recorder.event("policy_refused", reason, where);
    for (const call of calls) this.recorder.refused(call, reason, where);
    res.writeHead(400, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: `Refused by the test's wire capture: ${reason}. Nothing was sent to server "${this.name}".`,
        },
      }),
    );
  }

  /**
   * Records a request's body and applies the allow-list to it. Returns the ids of its
   * requests when it may go upstream, or `"answered"` when the proxy answered it itself
   * (a refusal).
   */
  private admit(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    connection: string,
  ): Array<string | number> | "answered" {
    if (req.method !== "POST" || body.length === 0) return [];
    const where = { server: this.name, connection };
    const undecodable = this.undecodable(req, body);
    if (undecodable) {
      this.recorder.recordMalformed(
        "to_server",
        isUtf8(body) ? body.toString("utf8") : `base64:${body.toString("base64")}`,
        undecodable,
        { ...where, at: monotonicNow() },
      );
      if (!this.allowed) return [];
      // Servers decode more than this proxy does: what it cannot read, it cannot vouch for.
      this.refuse(
        res,
        connection,
        `the body cannot be checked against the allow-list: ${undecodable}`,
        [],
      );
      return "answered";
    }
    const text = body.toString("utf8");
    // Parsed once: the recording, the allow-list and the request ids all read this value.
    const json = parseJsonText(text);
    this.recordBody("to_server", text, connection, monotonicNow(), json);
    const verdict = vouchFor(text, this.allowed, this.name, json);
    if (verdict.forward) return requestIdsOf(json);
    if (verdict.reply === undefined) {
      this.refuse(res, connection, verdict.reason, verdict.calls);
      return "answered";
    }
    for (const call of verdict.calls) this.recorder.refused(call, verdict.reason, where);
    const replies = Array.isArray(verdict.reply) ? verdict.reply : [verdict.reply];
    for (const message of replies as JSONRPCMessage[]) {
      this.recorder.record("from_server", message, { ...where, origin: "policy" });
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(verdict.reply));
    return "answered";
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const sessionHeader = req.headers["mcp-session-id"];
    let connection = this.connectionOf(
      typeof sessionHeader === "string" ? sessionHeader : undefined,
    );
    const headerKey = `${connection}`;
    if (!this.seenHeaders.has(headerKey)) {
      this.seenHeaders.add(headerKey);
      this.recorder.event(
        "connected",
        `HTTP ${req.method} headers ${JSON.stringify(redactHeaders(req.headers))}`,
        {
          server: this.name,
          connection,
        },
      );
    }
    const admitted = this.admit(req, res, body, connection);
    if (admitted === "answered") return;
    const requestIds = admitted;

    const headers: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(key)) headers[key] = value;
    }
    for (const [key, value] of Object.entries(this.upstreamHeaders))
      headers[key.toLowerCase()] = value;
    headers["content-length"] = String(body.length);
    const send = this.upstream.protocol === "https:" ? httpsRequest : httpRequest;
    const upstream = send(this.upstream, { method: req.method, headers });
    let response: IncomingMessage;
    try {
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        upstream.once("response", resolve);
        upstream.once("error", reject);
        upstream.end(body);
      });
    } catch (error) {
      // The server is unreachable: the calls in this request end, and the trace says why.
      const reason = `the HTTP server could not be reached: ${(error as Error).message}`;
      this.recorder.event("transport_error", reason, { server: this.name, connection });
      this.recorder.endRequests(connection, requestIds, "transport_error", reason);
      throw error;
    }
    const assigned = response.headers["mcp-session-id"];
    if (typeof assigned === "string" && !this.sessions.has(assigned))
      this.sessions.set(assigned, connection);
    if (typeof assigned === "string") connection = this.sessions.get(assigned) ?? connection;
    const outHeaders: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries(response.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(key)) outHeaders[key] = value;
    }
    res.writeHead(response.statusCode ?? 502, response.statusMessage, outHeaders);
    res.flushHeaders();
    const type = String(response.headers["content-type"] ?? "");
    if (type.includes("text/event-stream")) {
      let buffer = "";
      // A multi-byte character may be split between chunks: decode across them.
      const decoder = new StringDecoder("utf8");
      response.on("data", (chunk: Buffer) => {
        buffer += decoder.write(chunk);
        let boundary = buffer.search(/\r?\n\r?\n/);
        while (boundary !== -1) {
          const event = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
          const data = event
            .split(/\r?\n/)
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).replace(/^ /, ""))
            .join("\n");
          if (data) this.recordBody("from_server", data, connection, monotonicNow());
          boundary = buffer.search(/\r?\n\r?\n/);
        }
        res.write(chunk);
      });
      await new Promise<void>((resolve) => {
        response.once("end", resolve);
        response.once("error", () => resolve());
        res.once("close", () => {
          response.destroy();
          resolve();
        });
      });
      res.end();
      return;
    }
    const out: Buffer[] = [];
    for await (const chunk of response) out.push(chunk as Buffer);
    const payload = Buffer.concat(out);
    if (type.includes("application/json") && payload.length > 0 && !isUtf8(payload)) {
      this.recorder.recordMalformed(
        "from_server",
        `base64:${payload.toString("base64")}`,
        "not valid UTF-8 (kept as its bytes, in base64): no client could read it as JSON-RPC",
        { server: this.name, connection, at: monotonicNow() },
      );
    } else if (type.includes("application/json") && payload.length > 0) {
      this.recordBody("from_server", payload.toString("utf8"), connection, monotonicNow());
    }
    if ((response.statusCode ?? 0) >= 400) {
      // An HTTP error with no JSON-RPC answer: the calls it carried end here.
      const reason =
        `the HTTP server answered ${response.statusCode} ${response.statusMessage ?? ""}`.trim();
      this.recorder.event("transport_error", reason, { server: this.name, connection });
      this.recorder.endRequests(connection, requestIds, "transport_error", reason);
    }
    res.end(payload);
  }
}

/** The ids of the requests in a body, to end their calls if the server cannot be reached. */
function requestIdsOf(json: JsonText): Array<string | number> {
  if (!json.ok) return [];
  return (Array.isArray(json.value) ? json.value : [json.value])
    .map((item: { id?: unknown; method?: unknown } | null) =>
      item && typeof item === "object" && "method" in item ? item.id : undefined,
    )
    .filter((id): id is string | number => typeof id === "string" || typeof id === "number");
}
