/**
 * The `jest-m3` command line (`npx jest-m3 <command>`).
 *
 * @example
 * ```sh
 * npx jest-m3 show-report            # the latest run: prints its path and opens it
 * npx jest-m3 show-report 2026-05 --serve --port 9323
 * npx jest-m3 init --server "node server.js"
 * npx jest-m3 doctor
 * npx jest-m3 diff --baseline last-green
 * npx jest-m3 merge-reports shard-1/.m3/runs/* shard-2/.m3/runs/*
 * npx jest-m3 show-history --runs 30
 * ```
 */
import { createInterface } from "node:readline/promises";
import { parseDiffArgs, runDiff } from "./diff.js";
import type { CliIo } from "./io.js";
import { doctor } from "./doctor.js";
import { init } from "./init.js";
import { parseMergeArgs, runMergeReports } from "./merge-reports.js";
import { findReport, openInBrowser, ReportNotFound, serveReport } from "./show-report.js";
import { parseShowHistoryArgs, runShowHistory } from "./show-history.js";

/** Each command's own help (`jest-m3 <command> --help`), in the order of the overview. */
const COMMAND_HELP: Readonly<Record<string, string>> = {
  "show-report": `  show-report [run]   print the path of a run's HTML report (the latest by default) and open it
      run             a run id or its prefix, a run folder, or a report file
      --results <dir> the results folder (default: resultsDir of m3.config.json, else .m3)
      --no-open       only print the path
      --serve         serve the report on 127.0.0.1 instead of opening the file
      --port <n>      the port to serve on (default: any free port)
`,
  init: `  init --server "<command>"   scaffold jest-m3 here: jest.config.js, tsconfig.json (if none),
                      m3.config.json, a model script, a first direct test and agent test
      --name <name>   the server's name in tests (default: the package's name)
      --force, --yes  overwrite files that differ without asking (otherwise asked in a
                      terminal, kept when no one can answer)
`,
  diff: `  diff [run]          what changed since a baseline in the history (results folder's
                      history.sqlite), decided by statistics: a verdict per test and agent
                      (regressed, improved, unchanged, flaky, undecided with the trials needed)
                      by Fisher's exact test, Holm-corrected; latency by Mann-Whitney U;
                      failing tests, flips, tool catalogs, calls (see docs/regressions.md)
      run             a run id or its prefix (default: the latest run)
      --baseline <b>  a run id, previous (default), last-green, or pool:K (the last K runs'
                      pass counts pooled); previous, last-green and pool:K take only complete
                      runs of the same test selection (files, name pattern, projects); a run
                      named by id may be any, and the diff says how it differs
      --alpha <a>     significance level over the whole run (default 0.05)
      --results <dir> the results folder (default: resultsDir of m3.config.json, else .m3)
      --strict        exit 1 on any change, not only on regressions
      --latency-ratio <r>  p95 turn latency counts from this ratio (default 1.5)
      --catalog-growth <r> a server's tool catalog whose context cost on an agent grew by
                      this ratio or more is a regression (default 1.10)
      --json          the diff as JSON: every verdict with counts, p-values and method
      exit code       0 nothing regressed, 1 something regressed, a test fails its
                      requirement, a catalog got dearer, or the run is partial, 2 nothing
                      to compare
`,
  "merge-reports": `  merge-reports <run folders...>  the run folders of jest --shard=i/n shards (each with
                      its blob.json) into one run: report.json, report.html, one history entry
      --results <dir> where the merged run goes (default: resultsDir of m3.config.json)
      --no-history    do not record the merged run in the history
      --allow-partial merge even with shards missing (otherwise refused, naming them): the
                      run is marked partial and failed, and no diff baseline by default
      exit code       0 merged and passed, 1 merged and failed (or partial), 2 nothing
                      merged
`,
  "show-history": `  show-history        write one self-contained HTML page of the history (history.sqlite):
                      pass rate per test and agent over the last runs as small charts, flaky
                      tests (flip rate), the slowest tests, each run linked to its report
      --runs <n>      the last n runs (default 30)
      --results <dir> the results folder (default: resultsDir of m3.config.json, else .m3)
      --out <file>    where to write it (default: history.html in the results folder)
      --no-open       only print the path
      --serve         serve it (and the runs' reports) on 127.0.0.1 instead of opening it
      --port <n>      the port to serve on (default: any free port)
      exit code       0 written, 1 no history to show, 2 a usage mistake
`,
  doctor: `  doctor              versions, model providers, the stdio relay a run will use, and every
                      installed harness's readiness, with the fix for each problem
      exit code       0 all set, 1 a problem found
`,
  help: `  help [command]      this text, or one command's (also: jest-m3 <command> --help)
`,
};

const USAGE = `Usage: jest-m3 <command>   (jest-m3 <command> --help: that command's help)

Commands:
${Object.values(COMMAND_HELP).join("")}`;

/** One command's help: its usage line and options. */
function commandHelp(command: string): string {
  return `Usage: jest-m3 ${command}\n\n${COMMAND_HELP[command]}`;
}

export type { CliIo };

const processIo: CliIo = {
  cwd: process.cwd(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

interface ShowReportArgs {
  run?: string;
  results?: string;
  open: boolean;
  serve: boolean;
  port: number;
}

function parseShowReport(args: readonly string[]): ShowReportArgs | string {
  const parsed: ShowReportArgs = { open: true, serve: false, port: 0 };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const value = (): string | undefined => args[++index];
    if (arg === "--no-open") parsed.open = false;
    else if (arg === "--serve") parsed.serve = true;
    else if (arg === "--results") {
      const dir = value();
      if (!dir) return "--results needs a folder";
      parsed.results = dir;
    } else if (arg === "--port") {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) return "--port needs a port number";
      parsed.port = port;
    } else if (arg.startsWith("-")) return `unknown option ${arg}`;
    else if (parsed.run === undefined) parsed.run = arg;
    else return `unexpected argument ${arg}`;
  }
  return parsed;
}

async function showReport(args: ShowReportArgs, io: CliIo): Promise<number> {
  const file = findReport(io.cwd, args.run, args.results);
  io.out(`${file}\n`);
  if (args.serve) {
    const { url } = await serveReport(file, args.port);
    io.out(`Serving the report at ${url} (Ctrl+C to stop)\n`);
    return new Promise<number>(() => undefined); // until the process is stopped
  }
  if (args.open && !(await openInBrowser(file))) {
    io.out("No desktop browser to open it here: open the file above, or use --serve.\n");
  }
  return 0;
}

async function runInit(args: readonly string[], io: CliIo): Promise<number> {
  let server: string | undefined;
  let name: string | undefined;
  let force = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--force" || arg === "--yes" || arg === "-y") force = true;
    else if (arg === "--server") server = args[++index];
    else if (arg === "--name") name = args[++index];
    else {
      io.err(`jest-m3 init: unexpected argument ${arg}\n\n${commandHelp("init")}`);
      return 2;
    }
  }
  if (!server) {
    io.err(
      'jest-m3 init: --server "<command>" is required: the command that starts your MCP server over stdio, e.g. --server "node dist/server.js".\n',
    );
    return 2;
  }
  const interactive = io === processIo && process.stdin.isTTY === true;
  const confirm = interactive
    ? async (question: string): Promise<boolean> => {
        const prompt = createInterface({ input: process.stdin, output: process.stdout });
        try {
          return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
        } finally {
          prompt.close();
        }
      }
    : undefined;
  const steps = await init(io.cwd, {
    server,
    force,
    ...(name ? { name } : {}),
    ...(confirm ? { confirm } : {}),
  });
  for (const step of steps) {
    io.out(`  ${step.action.padEnd(11)} ${step.file}${step.note ? `  (${step.note})` : ""}\n`);
  }
  io.out(
    "\nNext: npx jest   (npx jest-m3 doctor says what is missing for agent tests)\n" +
      "Tests need @types/jest and @types/node: npm install --save-dev @types/jest @types/node\n",
  );
  return 0;
}

/**
 * Runs the command line with `argv` (without node and the script) and returns the exit
 * code: 0 done, 1 nothing to show, 2 a usage mistake.
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  // `--help` anywhere after a known command: that command's help, before any parsing.
  if (
    command !== undefined &&
    Object.hasOwn(COMMAND_HELP, command) &&
    rest.some((arg) => arg === "--help" || arg === "-h")
  ) {
    io.out(commandHelp(command));
    return 0;
  }
  if (!command || command === "help" || command === "--help" || command === "-h") {
    const topic = command === "help" ? rest[0] : undefined;
    io.out(topic !== undefined && Object.hasOwn(COMMAND_HELP, topic) ? commandHelp(topic) : USAGE);
    return command ? 0 : 2;
  }
  if (command === "doctor") {
    const { lines, problems } = await doctor(io.cwd);
    io.out(`${lines.join("\n")}\n`);
    return problems === 0 ? 0 : 1;
  }
  if (command === "init") return runInit(rest, io);
  if (command === "diff") {
    const args = parseDiffArgs(rest);
    if (typeof args === "string") {
      io.err(`jest-m3 diff: ${args}\n\n${commandHelp("diff")}`);
      return 2;
    }
    return runDiff(args, io);
  }
  if (command === "merge-reports") {
    const args = parseMergeArgs(rest);
    if (typeof args === "string") {
      io.err(`jest-m3 merge-reports: ${args}\n\n${commandHelp("merge-reports")}`);
      return 2;
    }
    return runMergeReports(args, io);
  }
  if (command === "show-history") {
    const args = parseShowHistoryArgs(rest);
    if (typeof args === "string") {
      io.err(`jest-m3 show-history: ${args}\n\n${commandHelp("show-history")}`);
      return 2;
    }
    return runShowHistory(args, io);
  }
  if (command !== "show-report") {
    io.err(`jest-m3: unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  const args = parseShowReport(rest);
  if (typeof args === "string") {
    io.err(`jest-m3 show-report: ${args}\n\n${commandHelp("show-report")}`);
    return 2;
  }
  try {
    return await showReport(args, io);
  } catch (error) {
    if (error instanceof ReportNotFound) {
      io.err(`jest-m3: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
