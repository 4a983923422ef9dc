#!/usr/bin/env node
/**
 * The stdio relay: `node stdio-relay.js --channel <socket> --server <name> [--allow <json>]
 * [--env-keep <json>] [--cwd <dir>] -- <command> <args...>`.
 *
 * A harness launches this instead of the MCP server. It starts the real server, forwards
 * bytes both ways, mirrors every line to the kit over the channel socket, answers
 * `tools/call` for tools outside the allow-list itself (the call never reaches the
 * server), and ends like the server ends: same exit code, stderr passed through. When the
 * channel drops it keeps forwarding; the kit notices the gap.
 *
 * The server gets the allow-listed part of the relay's environment plus the variables its
 * spec names (`--env-keep`), never the rest: an agent that hands its MCP servers its whole
 * environment (its API key with it) cannot leak it into the server this way. It starts in
 * `--cwd`, for agents whose MCP config has no working-directory field.
 */
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import {
  callsInFragments,
  vouchFor,
  type FlushFrame,
  type RelayFrame,
} from "./channel-protocol.js";
import { LineSplitter, type DecodedLine } from "./line-splitter.js";
import { childEnvironment } from "../processes/environment.js";

const STDERR_MIRROR_LIMIT = 256 * 1024;
const STDERR_TAIL_LIMIT = 16 * 1024;
const STOP_GRACE_MS = 1500;

interface RelayArgs {
  channel: string;
  server: string;
  allowed: ReadonlySet<string> | undefined;
  /** Names of the spec's own variables, passed on from the relay's environment. */
  keep: readonly string[] | undefined;
  cwd: string | undefined;
  command: string;
  args: string[];
}

function parseArgs(argv: string[]): RelayArgs {
  const split = argv.indexOf("--");
  const own = split >= 0 ? argv.slice(0, split) : argv;
  const target = split >= 0 ? argv.slice(split + 1) : [];
  const value = (flag: string): string | undefined => {
    const index = own.indexOf(flag);
    return index >= 0 ? own[index + 1] : undefined;
  };
  const channel = value("--channel");
  const server = value("--server");
  const allow = value("--allow");
  const keep = value("--env-keep");
  const [command, ...args] = target;
  if (!channel || !server || !command) {
    process.stderr.write(
      "stdio-relay: usage: stdio-relay --channel <socket> --server <name> [--allow <json array>] -- <command> [args...]\n",
    );
    process.exit(2);
  }
  return {
    channel,
    server,
    allowed: allow === undefined ? undefined : new Set(JSON.parse(allow) as string[]),
    keep: keep === undefined ? undefined : (JSON.parse(keep) as string[]),
    cwd: value("--cwd"),
    command,
    args,
  };
}

const now = (): number => performance.timeOrigin + performance.now();

/** A line as mirrored: its text, or its bytes in base64 when it is not valid UTF-8. */
function mirrored(d: "from_server" | "to_server", at: number, line: DecodedLine): RelayFrame {
  return line.valid
    ? { t: "msg", d, at, raw: line.text }
    : { t: "msg", d, at, raw: line.bytes.toString("base64"), invalidUtf8: true };
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  // The server starts only once the kit listens: a relay that cannot report would forward
  // calls no one sees, and a test could then pass on evidence that was never collected.
  const channel = connect(options.channel);
  const refuse = (error: Error): void => {
    process.stderr.write(
      `stdio-relay: cannot reach the test kit's channel ${JSON.stringify(options.channel)} (${error.message}); ` +
        `not starting server ${JSON.stringify(options.server)}, since its calls could not be recorded. ` +
        "Is the kit (or the session) that wrapped this server still open?\n",
    );
    process.exit(70);
  };
  channel.once("error", refuse);
  channel.once("connect", () => {
    channel.off("error", refuse);
    relay(options, channel);
  });
}

function relay(options: RelayArgs, connected: Socket): void {
  let channel: Socket | undefined = connected;
  let channelUp = true;
  const dropChannel = (): void => {
    channelUp = false;
    channel?.destroy();
    channel = undefined;
  };
  channel.on("error", dropChannel);
  channel.on("close", dropChannel);
  const send = (frame: RelayFrame): void => {
    if (channelUp && channel) channel.write(JSON.stringify(frame) + "\n");
  };
  const flushRequests = new LineSplitter();
  channel.on("data", (chunk: Buffer) => {
    for (const line of flushRequests.push(chunk)) {
      const frame = JSON.parse(line) as FlushFrame;
      // Frames are written in order, so this ack follows everything mirrored before it.
      if (frame.t === "flush") send({ t: "ack", token: frame.token });
    }
  });

  const env =
    options.keep === undefined
      ? process.env
      : childEnvironment(
          Object.fromEntries(
            options.keep.flatMap((name) => {
              const kept = process.env[name];
              return kept === undefined ? [] : [[name, kept]];
            }),
          ),
        );
  const child = spawn(options.command, options.args, {
    stdio: ["pipe", "pipe", "pipe"],
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let stderrMirrored = 0;
  let stderrTail = "";
  let clientClosed = false;
  let exiting = false;
  send({ t: "hello", server: options.server, relayPid: process.pid, serverPid: child.pid ?? null });

  const finish = (
    code: number | null,
    signal: NodeJS.Signals | null,
    cause: "server_exited" | "client_closed" | "spawn_failed",
    detail?: string,
  ): void => {
    if (exiting) return;
    exiting = true;
    send({ t: "exit", at: now(), code, signal, stderrTail, cause, ...(detail ? { detail } : {}) });
    const leave = (): void => {
      if (signal) {
        process.removeAllListeners("SIGTERM");
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    };
    process.stdout.end(() => {
      if (channel && channelUp) channel.end(leave);
      else leave();
    });
  };

  child.on("error", (error) => {
    process.stderr.write(
      `stdio-relay: cannot start ${JSON.stringify(options.command)}: ${error.message}\n`,
    );
    finish(127, null, "spawn_failed", error.message);
  });

  // Server → client: forward chunks untouched; mirror each complete line first.
  const fromServer = new LineSplitter();
  child.stdout.on("data", (chunk: Buffer) => {
    const at = now();
    for (const line of fromServer.pushLines(chunk)) send(mirrored("from_server", at, line));
    process.stdout.write(chunk);
  });

  child.stderr.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    const text = chunk.toString("utf8");
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_LIMIT);
    if (stderrMirrored < STDERR_MIRROR_LIMIT) {
      const room = STDERR_MIRROR_LIMIT - stderrMirrored;
      const data =
        text.length <= room
          ? text
          : `${text.slice(0, room)}\n[stderr mirror limit reached: the rest passes through unrecorded; its tail is kept]\n`;
      stderrMirrored += Math.min(text.length, room);
      send({ t: "stderr", at: now(), data });
    }
  });

  // Every line is checked before it is forwarded. With an allow-list, only what the relay
  // can vouch for reaches the server (see vouchFor): a call outside it is answered here,
  // and a line it cannot read, or a call it cannot answer, is kept back and recorded.
  const forward = (line: DecodedLine, terminator: string): void => {
    if (!line.valid) {
      send({
        t: "msg",
        d: "to_server",
        at: now(),
        raw: line.bytes.toString("base64"),
        invalidUtf8: true,
      });
      if (options.allowed) {
        send({
          t: "refused",
          at: now(),
          reason: "the line is not valid UTF-8",
          calls: callsInFragments(line.bytes.toString("latin1")),
        });
        return;
      }
      if (child.stdin.writable)
        child.stdin.write(Buffer.concat([line.bytes, Buffer.from(terminator)]));
      return;
    }
    const raw = line.text;
    send({ t: "msg", d: "to_server", at: now(), raw });
    const verdict = vouchFor(raw, options.allowed, options.server);
    if (!verdict.forward) {
      if (verdict.calls.length > 0 || verdict.reply === undefined) {
        send({ t: "refused", at: now(), reason: verdict.reason, calls: verdict.calls });
      }
      if (verdict.reply !== undefined) {
        const reply = JSON.stringify(verdict.reply);
        send({ t: "msg", d: "from_server", at: now(), raw: reply, origin: "policy" });
        process.stdout.write(reply + "\n");
      }
      return;
    }
    if (child.stdin.writable) child.stdin.write(raw + terminator);
  };
  const fromClient = new LineSplitter();
  process.stdin.on("data", (chunk: Buffer) => {
    for (const line of fromClient.pushLines(chunk)) forward(line, "\n");
  });
  process.stdin.on("end", () => {
    clientClosed = true;
    const rest = fromClient.restLine();
    if (rest) forward(rest, "");
    child.stdin.end();
    const term = setTimeout(() => child.kill("SIGTERM"), STOP_GRACE_MS);
    const kill = setTimeout(() => child.kill("SIGKILL"), 2 * STOP_GRACE_MS);
    term.unref();
    kill.unref();
  });
  child.stdin.on("error", () => undefined);
  process.stdout.on("error", () => undefined);

  child.on("close", (code, signal) => {
    const rest = fromServer.restLine();
    if (rest) send(mirrored("from_server", now(), rest));
    finish(code, clientClosed ? null : signal, clientClosed ? "client_closed" : "server_exited");
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      clientClosed = true;
      child.kill(signal);
    });
  }
}

main();
