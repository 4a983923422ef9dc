/**
 * `jest-m3 show-history [--runs N] [--out file] [--no-open | --serve [--port n]]`: writes the
 * history page (report/history-page.ts) of the results folder's history.sqlite, one
 * self-contained HTML file (`<resultsDir>/history.html` by default), prints its path and
 * opens it, or serves it and the runs' reports on 127.0.0.1.
 */
import { existsSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { dirname, join, relative, resolve, sep } from "node:path";
import { M3Error } from "@jest-m3/core";
import { readHistory, HISTORY_FILE } from "../store/history.js";
import {
  DEFAULT_HISTORY_RUNS,
  historyPageData,
  renderHistoryHtml,
} from "../report/history-page.js";
import type { CliIo } from "./io.js";
import { openInBrowser, runsFolder, serveLoopback } from "./show-report.js";

/** The options of `jest-m3 show-history`. */
export interface ShowHistoryArgs {
  readonly results?: string;
  /** The last N runs (default 30). */
  readonly runs: number;
  /** Where the page goes (default: history.html in the results folder). */
  readonly out?: string;
  readonly open: boolean;
  readonly serve: boolean;
  readonly port: number;
}

/** Parses `jest-m3 show-history`'s arguments; a string is a usage mistake. */
export function parseShowHistoryArgs(args: readonly string[]): ShowHistoryArgs | string {
  let results: string | undefined;
  let out: string | undefined;
  let runs = DEFAULT_HISTORY_RUNS;
  let open = true;
  let serve = false;
  let port = 0;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const value = (): string | undefined => args[++index];
    if (arg === "--no-open") open = false;
    else if (arg === "--serve") serve = true;
    else if (arg === "--results" || arg === "--out") {
      const given = value();
      if (!given || given.startsWith("-"))
        return `${arg} needs a ${arg === "--out" ? "file" : "folder"}`;
      if (arg === "--out") out = given;
      else results = given;
    } else if (arg === "--runs") {
      const given = Number(value());
      if (!Number.isInteger(given) || given < 1)
        return "--runs needs a whole number of runs ≥ 1 (e.g. 30)";
      runs = given;
    } else if (arg === "--port") {
      const given = Number(value());
      if (!Number.isInteger(given) || given < 0 || given > 65535)
        return "--port needs a port number";
      port = given;
    } else if (arg.startsWith("-")) return `unknown option ${arg}`;
    else return `unexpected argument ${arg}`;
  }
  return { ...(results ? { results } : {}), ...(out ? { out } : {}), runs, open, serve, port };
}

/**
 * Serves the page at `/` and the runs' reports it links to (`runs/<id>/report.html` under
 * `root`, nothing else) on 127.0.0.1, answering only loopback Host headers (as show-report).
 */
function serveHistory(
  page: string,
  root: string,
  port: number,
): Promise<{ server: Server; url: string }> {
  return serveLoopback(port, {
    fileFor: (path) => {
      const url = path ?? "/";
      const report = /^\/runs\/([A-Za-z0-9._-]+)\/report\.html$/.exec(url);
      const file =
        url === "/" ? page : report ? join(root, "runs", report[1]!, "report.html") : null;
      return file && existsSync(file) ? file : null;
    },
    refused: () => "not served to this Host\n",
    // The page links every run: no run folder is pruned while it is served.
    serving: join(root, "runs"),
  });
}

/** Runs `jest-m3 show-history`; returns the exit code (0 written, 1 no history to show). */
export async function runShowHistory(args: ShowHistoryArgs, io: CliIo): Promise<number> {
  const root = resolve(runsFolder(io.cwd, args.results), "..");
  let db;
  try {
    db = await readHistory(join(root, HISTORY_FILE));
  } catch (error) {
    if (error instanceof M3Error) {
      io.err(`jest-m3 show-history: ${error.message} [${error.code}]\n`);
      return 1;
    }
    throw error;
  }
  let html: string;
  const out = args.out ? resolve(io.cwd, args.out) : join(root, "history.html");
  try {
    const data = historyPageData(db, args.runs);
    html = renderHistoryHtml(data, (runId) => {
      const report = join(root, "runs", runId, "report.html");
      if (!existsSync(report)) return null;
      // Relative to the page, with forward slashes: a link that works from disk and served.
      return args.serve
        ? `runs/${encodeURIComponent(runId)}/report.html`
        : relative(dirname(out), report).split(sep).map(encodeURIComponent).join("/");
    });
  } finally {
    db.close();
  }
  writeFileSync(out, html);
  io.out(`${out}\n`);
  if (args.serve) {
    const { url } = await serveHistory(out, root, args.port);
    io.out(`Serving the history at ${url} (Ctrl+C to stop)\n`);
    return new Promise<number>(() => undefined); // until the process is stopped
  }
  if (args.open && !(await openInBrowser(out))) {
    io.out("No desktop browser to open it here: open the file above, or use --serve.\n");
  }
  return 0;
}
