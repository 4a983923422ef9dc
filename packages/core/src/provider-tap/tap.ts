/**
 * The provider tap: a loopback HTTP endpoint an agent is pointed at instead of its model
 * provider's base URL. It forwards every request byte for byte to the real base URL (the
 * scripted model offline, the vendor live), streams the answer back as it arrives, and
 * records each request ({@link ModelRequest}). Header values are never recorded (only
 * their names), so a key the agent sends is forwarded and nowhere written.
 */
import { createHash } from "node:crypto";
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import * as zlib from "node:zlib";
import { monotonicNow } from "../evidence/clock.js";
import { unavailable } from "../evidence/unavailable.js";
import { isGeneration, readAnswer, readRequest, type TapDialect } from "./dialect-reading.js";
import type { ModelRequest } from "./records.js";

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the ones the tap sets itself. */
const HOP_BY_HOP =
  /^(connection|keep-alive|proxy-connection|transfer-encoding|te|trailer|upgrade|host|content-length)$/i;

/** The most of one answer the tap keeps to read usage from (the agent gets all of it). */
const ANSWER_COPY_LIMIT = 8 * 1024 * 1024;

/** zlib's zstd decoder where this Node has one (22.15 and later); Node 20 has none. */
const zstdDecompress = (zlib as unknown as { zstdDecompressSync?: (body: Buffer) => Buffer })
  .zstdDecompressSync;

/**
 * A body read through its content encoding: the bytes, or why they could not be read
 * (`not decoded (zstd)` where this Node has no zstd decoder). Reading never touches what is
 * forwarded: the agent's and the provider's bytes go on as they came.
 */
function decoded(
  body: Buffer,
  encoding: string | undefined,
): { body: Buffer; note: null } | { body: null; note: string } {
  const name = (encoding ?? "identity").trim().toLowerCase();
  try {
    switch (name) {
      case "identity":
      case "":
        return { body, note: null };
      case "gzip":
      case "x-gzip":
        return { body: zlib.gunzipSync(body), note: null };
      case "deflate":
        return { body: zlib.inflateSync(body), note: null };
      case "br":
        return { body: zlib.brotliDecompressSync(body), note: null };
      case "zstd":
        return zstdDecompress
          ? { body: zstdDecompress(body), note: null }
          : { body: null, note: `not decoded (zstd): Node ${process.version} has no zstd decoder` };
      default:
        return { body: null, note: `not decoded (${name}): an encoding the tap cannot read` };
    }
  } catch (problem) {
    return {
      body: null,
      note: `not decoded (${name}): ${problem instanceof Error ? problem.message : String(problem)}`,
    };
  }
}

function parsedJson(body: Buffer | null): unknown {
  if (body === null) return undefined;
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** The provider a tap stands in front of (structurally core's `TapUpstream`). */
export interface TapUpstream {
  readonly name: string;
  readonly baseUrl: string;
  readonly wireApi: TapDialect;
  readonly envKey?: string;
}

const serialOf = (entry: ModelRequest): number =>
  Number(entry.id.slice(entry.id.lastIndexOf("-") + 1));
const inArrivalOrder = (list: readonly ModelRequest[]): ModelRequest[] =>
  list.slice().sort((a, b) => serialOf(a) - serialOf(b));

/**
 * A running tap in front of one provider. Records are attributed to the turn that was open
 * when the request arrived ({@link ProviderTap.beginTurn}).
 *
 * @example
 * ```ts
 * const tap = await ProviderTap.start(model.provider);
 * // launch the agent with tap.provider, then:
 * tap.beginTurn("turn-1");
 * const requests = await tap.endTurn();
 * await tap.close();
 * ```
 */
export class ProviderTap {
  private readonly list: ModelRequest[] = [];
  private readonly attached = new Set<TapAttachment>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sockets = new Set<Socket>();
  private turn: string | null = null;
  private serial = 0;
  /**
   * Connections to the provider kept open between requests, as an agent's own client keeps
   * them: a new connection per request costs more than everything else the tap does.
   */
  private readonly upstreamAgents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true }),
  };

  private constructor(
    private readonly server: Server,
    private readonly upstream: TapUpstream,
    /** The provider to hand the agent: the upstream's, with the tap's loopback base URL. */
    readonly provider: TapUpstream,
  ) {}

  /** Starts a tap on 127.0.0.1 (a free port) in front of `upstream`. */
  static async start<P extends TapUpstream>(
    upstream: P,
  ): Promise<ProviderTap & { readonly provider: P }> {
    const target = new URL(upstream.baseUrl);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    // Same path as the upstream's base URL, so the dialect's path suffixes stay as they are.
    const path = target.pathname.replace(/\/+$/, "");
    const tap = new ProviderTap(server, upstream, {
      ...upstream,
      baseUrl: `http://127.0.0.1:${port}${path}`,
    });
    server.on("connection", (socket) => {
      socket.setNoDelay(true);
      tap.sockets.add(socket);
      socket.once("close", () => tap.sockets.delete(socket));
    });
    server.on("request", (req, res) => {
      const handled = tap.forward(req, res, target).finally(() => tap.inFlight.delete(handled));
      tap.inFlight.add(handled);
    });
    return tap as ProviderTap & { readonly provider: P };
  }

  /**
   * Lets a session share this tap (so an agent process kept warm across sessions keeps one
   * base URL): the attachment gets the requests that arrive while it is the only attached
   * session with a turn open (or, outside turns, the only attached session). A request that
   * arrives while several attached sessions run turns belongs to none of them, and each of
   * those turns counts it in {@link TapAttachment.shared}.
   */
  attach(): TapAttachment {
    const attachment = new TapAttachment(
      (waitMs) => this.settle(waitMs),
      () => this.attached.delete(attachment),
    );
    this.attached.add(attachment);
    return attachment;
  }

  /** Keeps the tap from holding the process open (for a tap that lives as long as it). */
  unref(): this {
    this.server.unref();
    this.server.on("connection", (socket) => socket.unref());
    for (const socket of this.sockets) socket.unref();
    for (const agent of [this.upstreamAgents.http, this.upstreamAgents.https]) {
      agent.on("free", (socket: Socket) => socket.unref());
    }
    return this;
  }

  /** Every request so far, in arrival order (a copy). */
  get requests(): readonly ModelRequest[] {
    return inArrivalOrder(this.list);
  }

  /** Requests arriving from now on belong to `turnId`. */
  beginTurn(turnId: string): void {
    this.turn = turnId;
  }

  /**
   * Ends the turn: waits (at most `waitMs`) for the requests still in flight to finish, and
   * returns the requests of that turn. Requests after this belong to no turn.
   */
  async endTurn(waitMs = 2000): Promise<ModelRequest[]> {
    const turn = this.turn;
    this.turn = null;
    await this.settle(waitMs);
    return inArrivalOrder(this.list).filter(
      (entry) => entry.turnId !== null && entry.turnId === turn,
    );
  }

  /** Stops listening, ends open connections, and waits for in-flight records. Idempotent. */
  async close(): Promise<void> {
    this.turn = null;
    await this.settle(1000);
    for (const socket of this.sockets) socket.destroy();
    this.upstreamAgents.http.destroy();
    this.upstreamAgents.https.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The attachments a request arriving now belongs to, with their turn at arrival. */
  private ownersNow(): [TapAttachment, string | null][] {
    const all = [...this.attached];
    const inTurn = all.filter((attachment) => attachment.turn !== null);
    if (inTurn.length === 1) return [[inTurn[0]!, inTurn[0]!.turn]];
    if (inTurn.length > 1) {
      for (const attachment of inTurn) attachment.shared += 1;
      return [];
    }
    return all.length === 1 ? [[all[0]!, null]] : [];
  }

  private async settle(waitMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }

  private async forward(
    req: IncomingMessage,
    res: import("node:http").ServerResponse,
    target: URL,
  ): Promise<void> {
    const startedAt = monotonicNow();
    const turnId = this.turn;
    const id = `model-request-${++this.serial}`;
    const owners = this.ownersNow();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.test(name)) headers[name] = value;
    }
    headers["content-length"] = String(body.length);
    const url = new URL(req.url ?? "/", target.origin);
    const secure = url.protocol === "https:";
    const send = secure ? httpsRequest : httpRequest;
    const agent = secure ? this.upstreamAgents.https : this.upstreamAgents.http;
    const copy: Buffer[] = [];
    let copied = 0;
    let responseBytes = 0;
    let status: number | null = null;
    let contentType = "";
    let contentEncoding: string | undefined;
    const error = await new Promise<string | null>((resolve) => {
      // A kept-alive connection the provider closed while it sat idle fails at once
      // (ECONNRESET before any answer): the request is sent again, once, on a new one. The
      // agent never sees that race; without it an agent retrying a 502 with backoff waits.
      let current: ReturnType<typeof send> | undefined;
      // One listener for the agent's side, whichever attempt is under way.
      res.once("close", () => {
        if (!res.writableFinished) {
          current?.destroy();
          resolve("the agent closed the connection before the answer ended");
        }
      });
      const attempt = (retried: boolean): void => {
        const outgoing = send(url, { method: req.method, headers, agent }, (answer) => {
          status = answer.statusCode ?? null;
          contentType = String(answer.headers["content-type"] ?? "");
          contentEncoding = answer.headers["content-encoding"];
          const back: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined && !/^(connection|keep-alive|transfer-encoding)$/i.test(name))
              back[name] = value;
          }
          res.writeHead(status ?? 502, answer.statusMessage, back);
          answer.on("data", (chunk: Buffer) => {
            responseBytes += chunk.length;
            if (copied < ANSWER_COPY_LIMIT) {
              copy.push(chunk);
              copied += chunk.length;
            }
            res.write(chunk);
          });
          answer.once("end", () => {
            res.end();
            resolve(null);
          });
          answer.once("close", () => {
            if (answer.complete) return;
            res.destroy();
            resolve("the provider cut the answer before it ended");
          });
          answer.once("error", () => {
            res.destroy();
            resolve("the provider cut the answer before it ended");
          });
        });
        outgoing.once("error", (problem: NodeJS.ErrnoException) => {
          if (
            status === null &&
            !retried &&
            outgoing.reusedSocket &&
            (problem.code === "ECONNRESET" || problem.code === "EPIPE")
          ) {
            attempt(true);
            return;
          }
          if (status === null) {
            // The agent gets what a provider that cannot be reached looks like: a 502.
            if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
            res.end(JSON.stringify({ error: { message: `provider tap: ${problem.message}` } }));
          } else res.destroy();
          resolve(`the provider could not be reached: ${problem.message}`);
        });
        current = outgoing;
        // Headers and body leave at once: with Nagle's algorithm the body would wait for the
        // provider's delayed ACK (tens of milliseconds on loopback).
        outgoing.setNoDelay(true);
        outgoing.end(body);
      };
      attempt(false);
    });
    const endedAt = monotonicNow();
    // Read only once the answer is on its way back: parsing a request of an agent's whole
    // context must not delay its forwarding (it is not needed to forward it).
    const sent = decoded(body, req.headers["content-encoding"]);
    const read = readRequest(this.upstream.wireApi, path, parsedJson(sent.body));
    const generation = isGeneration(req.method ?? "GET", path);
    const answerBody = decoded(Buffer.concat(copy), contentEncoding);
    const answer =
      answerBody.body === null
        ? null
        : readAnswer(this.upstream.wireApi, contentType, answerBody.body.toString("utf8"));
    const record: ModelRequest = {
      id,
      turnId,
      dialect: this.upstream.wireApi,
      method: req.method ?? "GET",
      path,
      model: read.model,
      stream: read.stream,
      generation,
      startedAt,
      endedAt,
      latencyMs: endedAt - startedAt,
      status,
      error,
      headerNames: Object.keys(req.headers).sort(),
      request: {
        bytes: body.length,
        sha256: createHash("sha256").update(body).digest("hex"),
        messages: read.messages,
        messageBytes: read.messageBytes,
        tools: read.tools,
        toolBytes: read.tools.reduce((sum, tool) => sum + tool.bytes, 0),
        ...(sent.note === null ? {} : { decoding: sent.note }),
      },
      response: {
        bytes: responseBytes,
        complete: error === null && (status ?? 500) < 400 && (answer?.complete ?? false),
        ...(answerBody.note === null ? {} : { decoding: answerBody.note }),
      },
      usage: !generation
        ? unavailable(`a ${req.method ?? "GET"} ${path} request generates nothing`)
        : (answer?.usage ?? unavailable(`the answer's body was ${String(answerBody.note)}`)),
      toolCalls: answer?.toolCalls ?? [],
    };
    this.list.push(record);
    for (const [owner, turn] of owners) owner.add({ ...record, turnId: turn });
  }
}

/**
 * One session's share of a {@link ProviderTap} ({@link ProviderTap.attach}): its turns and
 * the requests that belong to it.
 */
export class TapAttachment {
  /** The turn open now, or null. @internal */
  turn: string | null = null;
  /** Requests of the current turn that could not be told apart from another session's. */
  shared = 0;
  private readonly list: ModelRequest[] = [];

  /** @internal Made by {@link ProviderTap.attach}. */
  constructor(
    private readonly settle: (waitMs: number) => Promise<void>,
    private readonly release: () => void,
  ) {}

  /** @internal The tap adds a request that belongs to this session. */
  add(record: ModelRequest): void {
    this.list.push(record);
  }

  /** This session's requests so far, in arrival order. */
  get requests(): readonly ModelRequest[] {
    return inArrivalOrder(this.list);
  }

  /** Requests arriving from now on belong to `turnId`. */
  beginTurn(turnId: string): void {
    this.turn = turnId;
    this.shared = 0;
  }

  /**
   * Ends the turn: waits (at most `waitMs`) for requests in flight, and returns the turn's
   * requests and how many requests of the turn's window were shared with another session.
   */
  async endTurn(waitMs = 2000): Promise<{ requests: ModelRequest[]; shared: number }> {
    const turn = this.turn;
    await this.settle(waitMs);
    this.turn = null;
    return {
      requests: inArrivalOrder(this.list).filter((entry) => entry.turnId === turn),
      shared: this.shared,
    };
  }

  /** Waits for requests in flight (at most `waitMs`), then stops taking requests. */
  async detach(waitMs = 1000): Promise<void> {
    this.turn = null;
    await this.settle(waitMs);
    this.release();
  }
}
