/**
 * `jest-m3 show-report [run]`: finds a run's HTML report (the latest by default), prints its
 * path, and opens it in the system's browser, or serves it on a loopback port.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { markServing } from "../main/run-retention.js";
import { loadConfig } from "../shared/config.js";

/** A report that was asked for and does not exist, said with what does. */
export class ReportNotFound extends Error {
  override readonly name = "ReportNotFound";
  readonly code = "M3_REPORT_NOT_FOUND";
}

/** The runs folder of a project: `<resultsDir>/runs`. */
export function runsFolder(cwd: string, resultsDir?: string): string {
  const base = resultsDir ? resolve(cwd, resultsDir) : loadConfig(cwd).resultsDir;
  return join(isAbsolute(base) ? base : resolve(cwd, base), "runs");
}

/** The run ids in `runs` that have an HTML report, oldest first (ids start with their time). */
export function runsWithReports(runs: string): string[] {
  if (!existsSync(runs)) return [];
  return (
    readdirSync(runs)
      // A dot folder is a merge in progress (merge-reports), not a run.
      .filter((id) => !id.startsWith(".") && existsSync(join(runs, id, "report.html")))
      .sort()
  );
}

/**
 * The report file for `run`: a run id (or its unique prefix), a run folder, a report file,
 * or, without `run`, the latest run's report.
 *
 * @throws {ReportNotFound} naming the folder searched and the runs it holds.
 */
export function findReport(cwd: string, run?: string, resultsDir?: string): string {
  if (run) {
    const direct = resolve(cwd, run);
    if (existsSync(direct) && statSync(direct).isFile()) return direct;
    if (existsSync(join(direct, "report.html"))) return join(direct, "report.html");
  }
  const runs = runsFolder(cwd, resultsDir);
  const ids = runsWithReports(runs);
  if (ids.length === 0) {
    throw new ReportNotFound(
      `No run report in ${runs}. Run your tests with preset "jest-m3" first (npx jest).`,
    );
  }
  if (!run) return join(runs, ids[ids.length - 1]!, "report.html");
  const matching = ids.filter((id) => id.startsWith(run));
  if (matching.length === 1) return join(runs, matching[0]!, "report.html");
  throw new ReportNotFound(
    `${matching.length === 0 ? "No run" : "More than one run"} matches "${run}" in ${runs}. Runs with a report: ${ids.slice(-10).join(", ")}.`,
  );
}

/** The command that opens a file in the desktop's browser, or null where there is none. */
function opener(): { command: string; args: string[] } | null {
  if (process.platform === "darwin") return { command: "open", args: [] };
  if (process.platform === "win32") return { command: "cmd", args: ["/c", "start", '""'] };
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return null;
  return { command: "xdg-open", args: [] };
}

/** Asks the desktop to open `file`; false when this machine has no desktop to ask. */
export function openInBrowser(file: string): Promise<boolean> {
  const how = opener();
  if (!how) return Promise.resolve(false);
  return new Promise((done) => {
    const child = spawn(how.command, [...how.args, file], { stdio: "ignore", detached: true });
    child.once("error", () => done(false));
    child.once("spawn", () => {
      child.unref();
      done(true);
    });
  });
}

/**
 * The Host headers a report served on 127.0.0.1:`port` answers: the loopback names with
 * that port, lower case. Anything else is a page of another origin whose DNS name was
 * rebound to 127.0.0.1 (DNS rebinding), and must not read the report.
 */
export function loopbackHosts(port: number): ReadonlySet<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** What {@link serveLoopback} serves, and how it answers a Host it does not serve. */
export interface LoopbackSite {
  /** The file to send for a GET of `path` (the request's URL); null: 404. */
  readonly fileFor: (path: string | undefined) => string | null;
  /** The text of the 421 answer to `host` (lower case), given the Host headers served. */
  readonly refused: (host: string, allowed: ReadonlySet<string>) => string;
  /** The folder kept from pruning while the site is served. */
  readonly serving: string;
}

/**
 * Serves `site` on 127.0.0.1:`port` (0: a free port) as HTML, uncached; resolves once
 * listening. Only requests whose Host header names the loopback address and port it bound to
 * are answered (see {@link loopbackHosts}); any other gets 421.
 */
export function serveLoopback(
  port: number,
  site: LoopbackSite,
): Promise<{ server: Server; url: string }> {
  let allowed: ReadonlySet<string> = new Set();
  const server = createServer((request, response) => {
    const host = (request.headers.host ?? "").toLowerCase();
    if (!allowed.has(host)) {
      response.writeHead(421, { "content-type": "text/plain" }).end(site.refused(host, allowed));
      return;
    }
    const file = request.method === "GET" ? site.fileFor(request.url) : null;
    if (!file) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
      .end(readFileSync(file));
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const actual = typeof address === "object" && address ? address.port : port;
      allowed = loopbackHosts(actual);
      server.once("close", markServing(site.serving));
      done({ server, url: `http://127.0.0.1:${actual}/` });
    });
  });
}

/**
 * Serves `file` (and only it) on 127.0.0.1; resolves once listening. Only requests whose
 * Host header names the loopback address and port it bound to are answered (see
 * {@link loopbackHosts}); any other gets 421.
 */
export function serveReport(file: string, port = 0): Promise<{ server: Server; url: string }> {
  return serveLoopback(port, {
    fileFor: (path) => (["/", "/report.html"].includes(path ?? "") ? file : null),
    refused: (host, allowed) =>
      `not served to Host ${JSON.stringify(host)}: open ${[...allowed][0] ?? "the address printed"} itself\n`,
    // Its run folder is not pruned while it is served.
    serving: dirname(file),
  });
}
