/**
 * The MCP servers the harness tests run, each logging every call it receives to a file (the
 * ground truth of what reached a server), and the readers of those logs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import type { StdioServer } from "@jest-m3/core";
import type { Rule, Script } from "@jest-m3/scripted-model";
import { fixturePath, REPO_ROOT, SHIPPING_SCRIPT } from "./paths";

/**
 * The `initialize` request (id 1) a test's or a benchmark's own client sends a server first,
 * as JSON text (no newline).
 */
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
});

/** One line of a call log: the tool a server was called with and its arguments. */
export interface LoggedCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** The shipping example server over stdio (no call log). */
export const shipping: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [SHIPPING_SCRIPT],
};

/** The shipping example server over stdio, started in the example's folder (no call log). */
export const shippingInExample: StdioServer = {
  ...shipping,
  cwd: join(REPO_ROOT, "examples", "shipping"),
};

/** The shipping example server over stdio, logging its calls to `callLog`. */
export function shippingServer(
  callLog: string,
  options: { name?: string; cwd?: string } = {},
): StdioServer {
  return {
    name: options.name ?? "shipping",
    command: process.execPath,
    args: [SHIPPING_SCRIPT],
    env: { SHIPPING_CALL_LOG: callLog },
    cwd: options.cwd ?? REPO_ROOT,
  };
}

/**
 * The ledger fixture server: record_entry (no annotations), erase_ledger (destructive),
 * read_ledger (read-only), crash (exits mid-call); `--with-wait` adds wait {ms}, a slow tool;
 * `--exit-at-start` dies before the handshake.
 */
export function ledgerServer(callLog: string, args: readonly string[] = []): StdioServer {
  return {
    name: "ledger",
    command: process.execPath,
    args: [fixturePath("ledger-server.mjs"), ...args],
    env: { LEDGER_CALL_LOG: callLog },
    cwd: REPO_ROOT,
  };
}

/** A server named `name` offering `tools` (each answers "<server>:<tool> ran"), logging to `log`. */
export function namedToolsServer(name: string, tools: readonly string[], log: string): StdioServer {
  return {
    name,
    command: process.execPath,
    args: [fixturePath("named-tools-server.mjs"), name, ...tools],
    env: { NAMED_CALL_LOG: log },
    cwd: REPO_ROOT,
  };
}

/**
 * The shipping server that first writes to `log` (one JSON line) which of `variables` it can
 * see in its environment: whether an agent passes its credentials on to MCP servers.
 */
export function envServer(log: string, variables: readonly string[]): StdioServer {
  return {
    name: "shipping",
    command: process.execPath,
    args: [fixturePath("env-server.mjs"), ...variables],
    env: { ENV_LOG: log },
  };
}

/** One start of {@link startLogServer}: the server process as it saw itself. */
export interface LoggedStart {
  readonly pid: number;
  /** Its parent: the relay that started it, or for a spare the relay that parked it. */
  readonly ppid: number;
  /** When its process started (ms since the epoch: Node's `performance.timeOrigin`). */
  readonly at: number;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The shipping server that first writes to `log` (one JSON line) the process it is: its id,
 * start time, working folder and whole environment. Read with {@link startLog}.
 */
export function startLogServer(log: string): StdioServer {
  return {
    name: "shipping",
    command: process.execPath,
    args: [fixturePath("start-log-server.mjs")],
    env: { START_LOG: log },
  };
}

/** The starts {@link startLogServer} logged to `file`, in order (none when it has no file yet). */
export function startLog(file: string): LoggedStart[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedStart);
}

/** The fault server over stdio, with the given flags. */
export function faultServer(...flags: string[]): StdioServer {
  return {
    name: "faulty",
    command: process.execPath,
    args: [fixturePath("fault-server.mjs"), ...flags],
  };
}

/**
 * A script for the fault server's sessions: `rules` first, then "echo" (one `faulty:echo` of
 * "hi", then the reply "echoed"); anything else gets "fallback reply".
 */
export function faultSessionScript(...rules: Rule[]): Script {
  return {
    rules: [
      ...rules,
      {
        name: "echo",
        when: { user: "echo" },
        steps: [{ call: "faulty:echo", args: { text: "hi" } }, { reply: "echoed" }],
      },
    ],
    fallback: [{ reply: "fallback reply" }],
  };
}

/** The JSON lines a server appended to its call log (none when it wrote nothing). */
export function callLog(file: string): LoggedCall[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as LoggedCall);
}

/** One line of a named-tools server's call log: which server got which call. */
export interface NamedCall extends LoggedCall {
  readonly server: string;
}

/** The calls a {@link namedToolsServer} logged (none when it wrote nothing). */
export function namedCallLog(file: string): NamedCall[] {
  return callLog(file) as NamedCall[];
}

/**
 * The shipping server listening on Streamable HTTP on a free loopback port. `stop()` kills
 * it and waits until it has closed (its pipes too), so no test file ends with it still
 * attached to the worker (a live child keeps Jest's worker from exiting: "A worker process
 * has failed to exit gracefully").
 */
export function startHttpShipping(): Promise<HttpServerProcess> {
  return startHttpServer(SHIPPING_SCRIPT);
}

/** A server listening on Streamable HTTP: its address, its process and how to stop it. */
export interface HttpServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Kills the server and waits until it has closed. */
  stop(): Promise<void>;
}

/**
 * The server `script` (the shipping server, or a fixture such as echo-secret-server.mjs)
 * started with `--http --port 0`, once it printed the loopback address it listens on.
 */
export async function startHttpServer(script: string): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [script, "--http", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) =>
      reject(new Error(`${script} --http exited with ${code}: ${seen}`)),
    );
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await closed;
    },
  };
}

/** A loopback port that was free a moment ago (listened on once, then closed): for a web server a test starts. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
