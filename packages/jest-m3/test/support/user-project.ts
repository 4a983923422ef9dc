/**
 * A user's project for the tests of the preset: a temporary folder whose Jest configuration
 * is only `preset: "jest-m3"` (plus, when given, an m3.config.json), with this repository's
 * node_modules linked in, run by Jest as a child process exactly as a user runs it. Every
 * run is time-boxed; every process a run's kits started can be listed from the run folder.
 */
import { spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { processStartTime } from "@jest-m3/core/runner";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";

/** The repository root. */
export const REPO = join(__dirname, "..", "..", "..", "..");
/** The shipping MCP server of the example. */
export const SHIPPING_SERVER = join(REPO, "examples", "shipping", "shipping-server.mjs");
const JEST_BIN = join(REPO, "node_modules", "jest", "bin", "jest.js");
/** Core's test harness module (`testHarness()`: the `test` harness a user's project loads). */
export const TEST_HARNESS = join(REPO, "packages", "core", "dist", "testing.js");
/** The jest-m3 command line. */
export const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");
/** The shipping server as a stdio server spec, in the TypeScript source of a user's test. */
export const SHIPPING_SPEC_SOURCE = `{ name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] }`;
/** The imports of a user's test file on the test harness. */
export const TEST_FILE_IMPORTS = `import { MCPTestKit, expect } from "jest-m3";
import { testHarness } from ${JSON.stringify(TEST_HARNESS)};
`;

/**
 * Statements of a user's test body (`MCPTestKit` and `testHarness` imported) that run the
 * test harness (model m) once on the shipping server: one shipping_quote for 2 kg local,
 * then the reply "The quote is 9 USD."; they declare `kit`, `result` and `turn`, its turn.
 */
export const QUOTED_RUN_SOURCE = `  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
  const result = await agent!.run(
    'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\\nreply The quote is 9 USD.',
    { server: ${SHIPPING_SPEC_SOURCE} },
  );
  const turn = result.turns[0]!;
`;

/**
 * The source of a user's test named by the expression `name`: one session of the test
 * harness (model scripted-1) on the shipping server, one turn sending the expression
 * `prompt`, then the statements `assertion`, which see `session` and `turn`.
 */
export function oneTurnTestSource(name: string, prompt: string, assertion: string): string {
  return `
test(${name}, async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["scripted-1"] }]);
  const session = agent!.session({ server: ${SHIPPING_SPEC_SOURCE} });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send(${prompt});
  }
  ${assertion}
});
`;
}

/** Creates a user project holding `files` (paths relative to the project, folders made). */
export function makeUserProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "jest-m3-user-project-"));
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "jest.config.js"), 'module.exports = { preset: "jest-m3" };\n');
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2022", "ESNext.Disposable"],
        module: "Node16",
        moduleResolution: "Node16",
        strict: true,
        isolatedModules: true,
        esModuleInterop: true,
        skipLibCheck: true,
        types: ["node", "jest"],
      },
    }),
  );
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The shipping example's folder. */
export const EXAMPLE = join(REPO, "examples", "shipping");

/**
 * A user project made from the shipping example: its m3.config.json (without the harness
 * packages it names: the preset finds the built-in ones) and model-script.json, plus `files`.
 */
export function makeExampleProject(files: Record<string, string>): string {
  const config = JSON.parse(readFileSync(join(EXAMPLE, "m3.config.json"), "utf8")) as Record<
    string,
    unknown
  >;
  return makeUserProject({
    "m3.config.json": JSON.stringify({ ...config, harnesses: [] }),
    "model-script.json": readFileSync(join(EXAMPLE, "model-script.json"), "utf8"),
    ...files,
  });
}

/** A Jest run of an example project that a file's tests share (see {@link exampleRunForFile}). */
export interface SharedRun {
  project: string;
  output: string;
  status: number | null;
}

/**
 * In the file's beforeAll: an example project of `files` ({@link makeExampleProject}) run by
 * Jest once, with `env(project)`, killed after `timeoutMs` (the hook waits 30 s more); in its
 * afterAll the project is removed unless M3_KEEP is set. The object is filled for the tests.
 */
export function exampleRunForFile(
  files: Record<string, string>,
  options: { env: (project: string) => Record<string, string>; timeoutMs: number },
): SharedRun {
  const shared: SharedRun = { project: "", output: "", status: null };
  beforeAll(() => {
    shared.project = makeExampleProject(files);
    const run = runJest(shared.project, {
      env: options.env(shared.project),
      timeoutMs: options.timeoutMs,
    });
    shared.output = run.output;
    shared.status = run.status;
  }, options.timeoutMs + 30_000);
  afterAll(() => {
    if (!process.env.M3_KEEP) removeTempDir(shared.project || undefined);
  });
  return shared;
}

/** Removes a temporary folder: a user project (with everything its runs wrote), an output folder. */
export function removeTempDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** The environment of a Jest child: this one, without colours and without this run's state. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0" };
  // The outer run's preset state must not leak into the user's run, nor a live provider
  // (unless the test asks for one in `extra`).
  const outer = [
    "M3_RUN_ID",
    "M3_RUN_DIR",
    "M3_SCRIPTED_PROVIDER",
    "M3_PROVIDER",
    "JEST_WORKER_ID",
  ];
  for (const name of outer) {
    delete env[name];
  }
  return { ...env, ...extra };
}

function jestArgs(args: readonly string[]): string[] {
  return [JEST_BIN, "--ci", "--colors=false", ...args];
}

/** How a Jest run ended. */
export interface JestRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stdout, then stderr. */
  readonly output: string;
  readonly durationMs: number;
}

/** Runs Jest in `dir` and waits for it, killing it (SIGKILL) after `timeoutMs`. */
export function runJest(
  dir: string,
  options: { args?: readonly string[]; env?: Record<string, string>; timeoutMs: number },
): JestRun {
  const started = Date.now();
  const run = spawnSync(process.execPath, jestArgs(options.args ?? []), {
    cwd: dir,
    encoding: "utf8",
    env: childEnv(options.env ?? {}),
    timeout: options.timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    status: run.status,
    signal: run.signal,
    output: `${run.stdout}\n${run.stderr}`,
    durationMs: Date.now() - started,
  };
}

/** How a child process that {@link runToEnd} ran ended, and what it printed. */
export interface ChildEnd {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command` with `args` in `cwd` to its end without blocking (for runs that go side by
 * side), killing it (SIGKILL) if it outlives `timeoutMs`; rejects only when it cannot be
 * started.
 */
export async function runToEnd(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ChildEnd> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const watched = watchChild(child, options.timeoutMs);
  const { status, signal } = await watched.closed;
  return { status, signal, stdout: watched.stdout(), stderr: watched.stderr() };
}

/**
 * Keeps what `child` prints and kills it (SIGKILL) if it outlives `timeoutMs`; `closed`
 * settles once it has closed (rejected when it could not be started).
 */
function watchChild(
  child: ChildProcessByStdio<null, Readable, Readable>,
  timeoutMs: number,
): {
  stdout(): string;
  stderr(): string;
  readonly closed: Promise<{ status: number | null; signal: NodeJS.Signals | null }>;
} {
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("close", (status, signal) => {
        clearTimeout(timer);
        resolve({ status, signal });
      });
    },
  );
  return { stdout: () => stdout, stderr: () => stderr, closed };
}

/** A Jest run in progress, for tests that signal it while it runs. */
export interface RunningJest {
  readonly pid: number;
  /** Resolves when Jest has exited (or was killed at the time box). */
  readonly done: Promise<JestRun>;
  /** True once Jest has exited (until then its pid cannot have been reused). */
  readonly exited: boolean;
  /** Everything Jest printed so far. */
  output(): string;
}

/**
 * Starts Jest in `dir`; it is killed (SIGKILL, by its pid) if it outlives `timeoutMs`. With
 * `detached`, Jest leads its own process group, as a terminal runs it.
 */
export function startJest(
  dir: string,
  options: {
    args?: readonly string[];
    env?: Record<string, string>;
    timeoutMs: number;
    detached?: boolean;
  },
): RunningJest {
  const started = Date.now();
  const child = spawn(process.execPath, jestArgs(options.args ?? []), {
    cwd: dir,
    env: childEnv(options.env ?? {}),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  const watched = watchChild(child, options.timeoutMs);
  let exited = false;
  child.once("exit", () => (exited = true));
  const output = (): string => `${watched.stdout()}\n${watched.stderr()}`;
  const done = watched.closed.then(({ status, signal }): JestRun => ({
    status,
    signal,
    output: output(),
    durationMs: Date.now() - started,
  }));
  if (child.pid === undefined) throw new Error("Jest could not be started");
  return {
    pid: child.pid,
    done,
    get exited() {
      return exited;
    },
    output,
  };
}

/** The one run folder (`.m3/runs/<run-id>`) a single Jest run wrote in `dir`. */
export function runFolder(dir: string): string {
  const runs = join(dir, ".m3", "runs");
  const entries = existsSync(runs) ? readdirSync(runs) : [];
  if (entries.length !== 1) {
    throw new Error(`expected one run folder in ${runs}, found ${JSON.stringify(entries)}`);
  }
  return join(runs, entries[0]!);
}

/** A process the run's kits reported starting (the run folder's processes/*.jsonl). */
export interface LedgerProcess {
  readonly pid: number;
  readonly label: string;
  readonly command: string;
  readonly testName: string | null;
  /** When it started (see {@link startTicks}): the process, not just its id. */
  readonly startTicks: string | null;
}

/** Every process the run's kits reported starting. */
export function ledgerProcesses(run: string): LedgerProcess[] {
  const folder = join(run, "processes");
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((file) => jsonLines<LedgerProcess>(join(folder, file)));
}

/** The JSON values of a file with one per line; none when the file does not exist. */
export function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/**
 * True when `pid` exists and is not a zombie, as `ps` sees it (independently of the kit's
 * own bookkeeping). A zombie has exited: it runs nothing and holds nothing.
 */
export function isRunning(pid: number): boolean {
  const ps = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  const state = ps.stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/** The processes among `processes` still running, with what they were. */
export function stillRunning<T extends { pid: number }>(processes: readonly T[]): T[] {
  return processes.filter((child) => isRunning(child.pid));
}

/** Waits until `condition` holds, checking every 50 ms; false when `timeoutMs` passed first. */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The direct child processes of `pid`, from `ps`. */
export function childPids(pid: number): number[] {
  const ps = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" });
  return ps.stdout
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((child) => Number.isInteger(child) && child > 0);
}

/** When `pid` started, in clock ticks since boot (Linux), or null when it is gone. */
export function startTicks(pid: number): string | null {
  return processStartTime(pid);
}

/**
 * Sends `signal` to `pid` only if it is still the very process that started at `ticks`
 * (never to an unrelated process that reused the id). True when it was sent.
 */
export function signalIfSame(pid: number, ticks: string | null, signal: NodeJS.Signals): boolean {
  if (ticks === null || startTicks(pid) !== ticks) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * After a test that ran Jest as a child: stops what a failed scenario may have left (each
 * process by pid and start time), kills that Jest if it still runs (not yet reaped, so the
 * pid is still its own) and waits for it, then removes `folders`.
 */
export async function cleanUpChildRun(run: {
  readonly jest: RunningJest | undefined;
  readonly leftovers: readonly { pid: number; ticks: string | null }[];
  readonly folders: readonly (string | undefined)[];
}): Promise<void> {
  for (const { pid, ticks } of run.leftovers) signalIfSame(pid, ticks, "SIGKILL");
  if (run.jest) {
    if (!run.jest.exited) process.kill(run.jest.pid, "SIGKILL");
    await run.jest.done;
  }
  for (const folder of run.folders) removeTempDir(folder);
}

/**
 * The temporary folders of the kits that started `processes`, read from the running
 * processes (an app-server's working directory and CODEX_HOME, a relay's channel socket):
 * what a kit that never closed leaves in the temporary directory.
 */
export function kitTempDirs(processes: readonly LedgerProcess[]): string[] {
  const found = new Set<string>();
  const kitDir = (path: string | undefined): void => {
    if (!path) return;
    const inTmp = relative(tmpdir(), path).split(sep)[0] ?? "";
    if (/^m3-(codex|workspace|wire)-/.test(inTmp)) found.add(join(tmpdir(), inTmp));
  };
  for (const child of processes) {
    try {
      if (child.label === "codex app-server") {
        kitDir(readlinkSync(`/proc/${child.pid}/cwd`));
        const environ = readFileSync(`/proc/${child.pid}/environ`, "utf8").split("\0");
        kitDir(environ.find((entry) => entry.startsWith("CODEX_HOME="))?.slice(11));
      } else if (child.label.startsWith("relay for ")) {
        const args = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
        kitDir(args[args.indexOf("--channel") + 1]);
      }
    } catch {
      // Gone already: nothing to read.
    }
  }
  return [...found];
}
