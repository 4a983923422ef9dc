/**
 * A server command started for the tests and stopped after them, the way Playwright Test's
 * `webServer` does it: the command runs in its own process group, its URL is polled until
 * it answers, and the tests get that URL (for a Streamable HTTP MCP server's spec, say).
 */
import { InvalidArgument, M3Error } from "../errors.js";
import { keepingAlive } from "../processes/keep-alive.js";
import { childEnvironment, ManagedProcess } from "../processes/managed-process.js";
import { checkWebServerOptions, type WebServerOptions } from "../validation/web-server-options.js";

export type { WebServerOptions } from "../validation/web-server-options.js";

/** A running server from {@link startWebServer}; `await using` stops it. */
export interface WebServer extends AsyncDisposable {
  readonly name: string;
  /** The URL that answered. */
  readonly url: string;
  /** The server's process id, or undefined when an existing server was reused. */
  readonly pid: number | undefined;
  /** The last lines the server wrote to stderr. */
  stderrTail(lines?: number): string;
  /** Stops the server and its process group (SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void>;
}

/** A web server did not start: it exited, or its URL did not answer in time. */
export class WebServerFailed extends M3Error {
  override readonly code = "M3_WEB_SERVER";
}

const STOP_GRACE_MS = 3_000;

/** Whether `url` answers with an HTTP status below 500 within a second. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000), redirect: "manual" });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
}

const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Starts a server command and resolves once its URL answers; rejects with
 * {@link WebServerFailed} (the server's stderr in the message) when the command exits
 * first or the URL stays silent past `timeoutMs`, having stopped what it started. Bad
 * options are refused with `InvalidArgument` before anything starts.
 *
 * @example
 * ```ts
 * await using web = await startWebServer({
 *   command: process.execPath,
 *   args: ["server.mjs", "--http", "--port", "8931"],
 *   url: "http://127.0.0.1:8931/mcp",
 * });
 * const server = { name: "catalogue", url: web.url };
 * ```
 */
export function startWebServer(options: WebServerOptions): Promise<WebServer> {
  // The kit's timers are unref'd: held open here, a plain script or Jest's global setup
  // waiting on a server that exits would otherwise end silently with status 0.
  return keepingAlive(start(options));
}

async function start(options: WebServerOptions): Promise<WebServer> {
  const checked = checkWebServerOptions(
    options,
    (field, problem) =>
      new InvalidArgument(`startWebServer: ${field ? `"${field}" ` : ""}${problem}`),
  );
  const url = options.url; // as given (checked above): the URL the tests will use
  const name = checked.name ?? checked.command.split(/[\\/]/).pop()!;
  if (await answers(url)) {
    if (checked.reuseExisting !== true)
      throw new WebServerFailed(
        `Web server ${name}: something already answers at ${url} before it was started. Stop ` +
          `that process (a server left from another run?), use another port, or set ` +
          `reuseExisting: true to test the running one.`,
      );
    return handle(name, url, undefined);
  }
  const child = new ManagedProcess({
    label: name,
    command: checked.command,
    args: checked.args ?? [],
    env: childEnvironment(checked.env ?? {}),
    ...(checked.cwd !== undefined ? { cwd: checked.cwd } : {}),
  });
  // Nothing reads its stdout: drain it so a chatty server never blocks on a full pipe.
  child.child.stdout.resume();
  try {
    await child.spawned;
  } catch (error) {
    throw new WebServerFailed(
      `Web server ${name}: could not start ${checked.command}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const timeoutMs = checked.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let wait = 25;
  for (;;) {
    if (child.exitInfo !== undefined || (await answersOrExit(url, child))) break;
    if (Date.now() >= deadline) {
      await child.stop(STOP_GRACE_MS);
      throw new WebServerFailed(
        `Web server ${name}: ${url} did not answer within ${timeoutMs} ms, so the server was ` +
          `stopped. Check the URL and port it listens on, or raise timeoutMs.${stderrSection(child)}`,
      );
    }
    await pause(wait);
    wait = Math.min(wait * 2, 250);
  }
  if (child.exitInfo !== undefined) {
    await child.exited;
    const { code, signal } = child.exitInfo;
    await child.stop(STOP_GRACE_MS);
    throw new WebServerFailed(
      `Web server ${name}: the command exited (${signal ?? `code ${String(code)}`}) before ` +
        `${url} answered.${stderrSection(child)}`,
    );
  }
  return handle(name, url, child);
}

/** Polls once; a server that exits meanwhile ends the wait at once. */
async function answersOrExit(url: string, child: ManagedProcess): Promise<boolean> {
  const exited = child.exited.then(() => false);
  return Promise.race([answers(url), exited]);
}

function stderrSection(child: ManagedProcess): string {
  const tail = child.stderrTail(20).trim();
  return tail ? `\nIts stderr (last lines):\n${tail}` : " It wrote nothing to stderr.";
}

function handle(name: string, url: string, child: ManagedProcess | undefined): WebServer {
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= child ? keepingAlive(child.stop(STOP_GRACE_MS)) : Promise.resolve());
  return {
    name,
    url,
    pid: child?.pid,
    stderrTail: (lines = 20) => child?.stderrTail(lines) ?? "",
    close,
    [Symbol.asyncDispose]: close,
  };
}
