import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { TraceRecorder } from "../evidence/recorder.js";
import type { ToolCall, Trace } from "../evidence/trace.js";
import type { ResolvedHttpServer, ResolvedServer, ResolvedStdioServer } from "../servers/spec.js";
import {
  type CapturedHttpServer,
  type CapturedServer,
  type CapturedStdioServer,
} from "./captured-server.js";
import type { ToolPolicy } from "../servers/tool-policy.js";
import type { FlushFrame, HelloFrame, RelayFrame } from "./channel-protocol.js";
import { HttpCaptureProxy } from "./http-proxy.js";
import { parseJsonRpcPayload } from "./json-rpc.js";
import { LineSplitter } from "./line-splitter.js";
import { stdioRelayLaunch } from "./relay-launch.js";
import { spareServers, type RelayOrigin } from "./spare-servers.js";
import { processStartTime } from "../processes/managed-process.js";
import { describeExit } from "../errors.js";

/** What a capture tells its owner (the kit). */
export interface CaptureOwner {
  /** A relay said hello: it and the server it started are running. */
  processStarted?(process: { pid: number; label: string; command: string }): void;
}

interface RelayConnection {
  readonly socket: Socket;
  readonly connection: string;
  server: string;
  relayPid: number | undefined;
  serverPid: number | null;
  exited: boolean;
  readonly acks: Map<number, () => void>;
  /** Where the native relay ran (its hello says), for a spare server of the next session. */
  origin?: RelayOrigin;
}

/**
 * Wire evidence for a set of servers: wraps each (a relay for stdio, a proxy for HTTP),
 * receives everything they mirror over a local channel socket, and turns it into a
 * {@link Trace}. Turns are windows: {@link WireCapture.beginTurn} opens one,
 * {@link WireCapture.endTurn} flushes every channel and closes it, so nothing observed in a
 * turn is attributed late or lost.
 */
export class WireCapture {
  private readonly recorder = new TraceRecorder();
  private readonly relays = new Set<RelayConnection>();
  private readonly proxies: HttpCaptureProxy[] = [];
  /** The stdio servers this capture wrapped, by name. */
  private readonly stdioSpecs = new Map<string, ResolvedStdioServer>();
  /** Relays and servers that said hello and have not reported their exit, with start times. */
  private readonly knownPids = new Map<number, string | null>();
  private nextConnection = 1;
  private nextToken = 1;
  private closed = false;
  private shuttingDown = false;

  private constructor(
    private readonly channel: Server,
    private readonly channelPath: string,
    private readonly policy: ToolPolicy,
    private readonly owner: CaptureOwner,
  ) {}

  /**
   * @internal Opens the channel socket in `dir`. Use {@link MCPTestKit.capture}.
   * @param owner - Told about the processes the relays start (the kit tracks them).
   */
  static async open(
    dir: string,
    policy: ToolPolicy,
    owner: CaptureOwner = {},
  ): Promise<WireCapture> {
    const path =
      process.platform === "win32"
        ? `\\\\.\\pipe\\m3-${process.pid}-${Date.now()}`
        : join(dir, "channel.sock");
    const server = createServer();
    const capture = new WireCapture(server, path, policy, owner);
    server.on("connection", (socket) => capture.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    return capture;
  }

  /** Everything observed so far, live. */
  get trace(): Trace {
    return this.recorder.snapshot();
  }

  /**
   * Calls `watcher` as each tool call's request crosses the wire (`started`) and as it ends
   * (`ended`). For live progress; returns a function that stops watching.
   */
  watchCalls(watcher: (call: ToolCall, phase: "started" | "ended") => void): () => void {
    return this.recorder.watchCalls(watcher);
  }

  /** Process ids of relays and the servers they started that may still run. */
  get pids(): readonly number[] {
    return [...this.knownPids.keys()];
  }

  /** The same, with the start time seen at hello (to never signal a reused id). */
  get processes(): ReadonlyArray<{ pid: number; startTime: string | null }> {
    return [...this.knownPids].map(([pid, startTime]) => ({ pid, startTime }));
  }

  /** Wraps a server for capture. Its tool policy comes from the capture's policy. */
  async wrap(server: ResolvedServer): Promise<CapturedServer> {
    return server.kind === "stdio" ? this.wrapStdio(server) : this.wrapHttp(server);
  }

  /** Opens a turn: what is observed from now on belongs to `turnId`. */
  beginTurn(turnId: string): void {
    this.recorder.setTurn(turnId);
  }

  /** Flushes every channel, then closes the current turn. */
  async endTurn(timeoutMs = 5000): Promise<void> {
    await this.flush(timeoutMs);
    this.recorder.setTurn(null);
  }

  /**
   * Resolves once every relay has confirmed that everything it mirrored before this call
   * has arrived and been recorded. A relay that does not answer within `timeoutMs` is
   * recorded as a gap (its evidence may be incomplete), never waited on forever.
   */
  async flush(timeoutMs = 5000): Promise<void> {
    const live = [...this.relays].filter((relay) => !relay.exited && !relay.socket.destroyed);
    await Promise.all(
      live.map(
        (relay) =>
          new Promise<void>((resolve) => {
            const token = this.nextToken++;
            const timer = setTimeout(() => {
              relay.acks.delete(token);
              this.recorder.gap(
                { server: relay.server, connection: relay.connection },
                `the relay did not confirm a flush within ${timeoutMs} ms; later messages may be missing`,
              );
              resolve();
            }, timeoutMs);
            relay.acks.set(token, () => {
              clearTimeout(timer);
              resolve();
            });
            const frame: FlushFrame = { t: "flush", token };
            relay.socket.write(JSON.stringify(frame) + "\n");
          }),
      ),
    );
  }

  /** Keeps an event from outside the wire (a harness's approval decision, say) in the trace. */
  recordEvent(kind: "approval" | "harness" | "stderr", detail: string): void {
    this.recorder.event(kind, detail, { server: "(harness)", connection: "(harness)" });
  }

  /**
   * Says the harness is being shut down on purpose: relays that go away from now on (the
   * harness kills them with its own exit) leave an event, not an evidence gap.
   */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  /** @internal For fault tests: drops the channel of every relay of `server`. */
  dropChannels(server: string): void {
    for (const relay of this.relays) if (relay.server === server) relay.socket.destroy();
  }

  /** Closes the channel and the proxies. Relays keep forwarding; their harness ends them. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const relay of this.relays) {
      const spec = this.stdioSpecs.get(relay.server);
      if (spec && relay.origin) spareServers.sessionClosed(spec, relay.origin);
    }
    for (const relay of this.relays) {
      for (const resolve of relay.acks.values()) resolve();
      relay.socket.destroy();
    }
    await Promise.all(this.proxies.map((proxy) => proxy.close()));
    await new Promise<void>((resolve) => this.channel.close(() => resolve()));
  }

  private wrapStdio(server: ResolvedStdioServer): CapturedStdioServer {
    const allowed = this.policy.get(server.name);
    const relay = stdioRelayLaunch();
    this.stdioSpecs.set(server.name, server);
    const spares = spareServers.socketsFor(server).flatMap((socket) => ["--spare", socket]);
    return {
      kind: "stdio",
      name: server.name,
      command: relay.command,
      args: [
        ...relay.args,
        "--channel",
        this.channelPath,
        "--server",
        server.name,
        ...(allowed === undefined ? [] : ["--allow", JSON.stringify([...allowed])]),
        "--env-keep",
        JSON.stringify(Object.keys(server.env)),
        ...(server.cwd ? ["--cwd", server.cwd] : []),
        ...spares,
        "--",
        server.command,
        ...server.args,
      ],
      env: { ...server.env },
      cwd: server.cwd,
    };
  }

  private async wrapHttp(server: ResolvedHttpServer): Promise<CapturedHttpServer> {
    const proxy = new HttpCaptureProxy(
      server.name,
      server.url,
      this.recorder,
      this.policy.get(server.name),
      server.headers,
    );
    this.proxies.push(proxy);
    const url = await proxy.listen();
    // The proxy adds the spec's headers upstream: the harness (and its config) never holds them.
    return { kind: "http", name: server.name, url: url.toString(), headers: {} };
  }

  private accept(socket: Socket): void {
    const relay: RelayConnection = {
      socket,
      connection: `relay-${this.nextConnection++}`,
      server: "(unknown)",
      relayPid: undefined,
      serverPid: null,
      exited: false,
      acks: new Map(),
    };
    this.relays.add(relay);
    const frames = new LineSplitter();
    socket.on("data", (chunk: Buffer) => {
      for (const line of frames.push(chunk)) this.onFrame(relay, JSON.parse(line) as RelayFrame);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      for (const resolve of relay.acks.values()) resolve();
      relay.acks.clear();
      if (!relay.exited && !this.closed && this.shuttingDown) {
        this.recorder.event(
          "closed",
          "the relay's channel closed while the session was shutting down",
          { server: relay.server, connection: relay.connection },
        );
      } else if (!relay.exited && !this.closed) {
        this.recorder.gap(
          { server: relay.server, connection: relay.connection },
          "the relay's channel closed before the server exited: later messages on this connection were not observed",
        );
      }
    });
  }

  /** Where the native relay ran: what a spare server for the next session must match. */
  private noteOrigin(relay: RelayConnection, frame: HelloFrame): void {
    const spec = this.stdioSpecs.get(frame.server);
    if (frame.ppid === undefined || frame.cwd === undefined || !frame.inherited) return;
    relay.origin = { ppid: frame.ppid, cwd: frame.cwd, inherited: frame.inherited };
    if (spec) spareServers.relayStarted(spec, relay.origin, frame.spare);
  }

  private onFrame(relay: RelayConnection, frame: RelayFrame): void {
    const where = { server: relay.server, connection: relay.connection };
    switch (frame.t) {
      case "hello":
        relay.server = frame.server;
        relay.relayPid = frame.relayPid;
        relay.serverPid = frame.serverPid;
        this.knownPids.set(frame.relayPid, processStartTime(frame.relayPid));
        if (frame.serverPid !== null)
          this.knownPids.set(frame.serverPid, processStartTime(frame.serverPid));
        relay.relayPid = frame.relayPid;
        this.owner.processStarted?.({
          pid: frame.relayPid,
          label: `relay for ${frame.server}`,
          command: "stdio-relay",
        });
        if (frame.serverPid !== null) {
          this.owner.processStarted?.({
            pid: frame.serverPid,
            label: `server ${frame.server}`,
            command: "(via relay)",
          });
        }
        this.noteOrigin(relay, frame);
        this.recorder.event(
          "connected",
          `relay pid ${frame.relayPid}, server pid ${frame.serverPid}${frame.spare ? " (a spare, started before the session and used by no other)" : ""}`,
          {
            server: frame.server,
            connection: relay.connection,
          },
        );
        return;
      case "msg": {
        const at = { ...where, at: frame.at, ...(frame.origin ? { origin: frame.origin } : {}) };
        if (frame.invalidUtf8) {
          this.recorder.recordMalformed(
            frame.d,
            `base64:${frame.raw}`,
            "not valid UTF-8 (kept as its bytes, in base64): no client could read it as JSON-RPC",
            at,
          );
          return;
        }
        for (const parsed of parseJsonRpcPayload(frame.raw)) {
          if (parsed.ok) this.recorder.record(frame.d, parsed.message, at);
          else this.recorder.recordMalformed(frame.d, frame.raw, parsed.problem, at);
        }
        return;
      }
      case "refused":
        if (frame.calls.length === 0) {
          this.recorder.event("policy_refused", frame.reason, { ...where, at: frame.at });
        }
        for (const call of frame.calls)
          this.recorder.refused(call, frame.reason, { ...where, at: frame.at });
        return;
      case "stderr":
        this.recorder.event("stderr", frame.data, { ...where, at: frame.at });
        return;
      case "exit": {
        relay.exited = true;
        // Both are gone (the relay exits right after this frame): never signal their ids later.
        if (relay.relayPid !== undefined) this.knownPids.delete(relay.relayPid);
        if (relay.serverPid !== null) this.knownPids.delete(relay.serverPid);
        const how = describeExit(frame);
        const detail =
          frame.cause === "client_closed"
            ? `the harness closed the connection; the server exited (${how})`
            : frame.cause === "spawn_failed"
              ? `the server could not be started: ${frame.detail ?? ""}`
              : `the server process exited (${how})`;
        this.recorder.event(
          "process_exit",
          frame.stderrTail ? `${detail}; stderr tail:\n${frame.stderrTail}` : detail,
          { ...where, at: frame.at },
        );
        this.recorder.connectionClosed(
          { ...where, at: frame.at },
          detail,
          frame.cause === "client_closed" ? "incomplete" : "transport_error",
        );
        return;
      }
      case "ack":
        relay.acks.get(frame.token)?.();
        relay.acks.delete(frame.token);
        return;
    }
  }
}
