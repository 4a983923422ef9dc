// What the Jest-level benchmarks share: a user's project in a temporary folder (this
// repository's node_modules linked in, so the workspace packages are what the project
// installs), a whole `jest` run in it as a child process, timed, and the peak memory of the
// process tree of a run, sampled from /proc.
import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DOCUMENTED_TSCONFIG } from "@jest-m3/test-support";
import { treeRss } from "./process-tree";

export const REPO = join(__dirname, "..");
export const SHIPPING = join(REPO, "examples", "shipping");
const JEST = join(REPO, "node_modules", "jest", "bin", "jest.js");
export const MB = 1024 * 1024;

/** A project folder holding `files` (relative paths), with the repository's node_modules. */
export function makeProject(prefix: string, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), `bench-${prefix}-`));
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** A tsconfig as a user's project has it (no isolatedModules: ts-jest's default checks types). */
export const USER_TSCONFIG = JSON.stringify(DOCUMENTED_TSCONFIG);

/** How a whole Jest run went. */
export interface JestRun {
  readonly wallMs: number;
  readonly status: number | null;
  readonly output: string;
  /**
   * CPU time (user + system) of Jest and every process it waited for, ms: what the run cost
   * the machine, much less sensitive than wall time to other work sharing the cores.
   */
  readonly cpuMs: number;
  /** The peak of the summed RSS of Jest and every process below it, bytes (0 unless sampled). */
  readonly peakTreeRss: number;
}

/** The environment of a benchmark's Jest run: no state of an outer run, no colours. */
function jestEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0", CI: "1" };
  for (const name of Object.keys(env)) {
    if (name.startsWith("M3_") || name === "JEST_WORKER_ID") delete env[name];
  }
  return { ...env, ...extra };
}

/**
 * Runs `jest` in `dir` and times it from spawn to exit. With `sampleMs`, the summed RSS of
 * the run's process tree is read that often and its peak returned.
 */
export function runJest(
  dir: string,
  args: readonly string[] = [],
  options: { env?: Record<string, string>; sampleMs?: number; timeoutMs?: number } = {},
): Promise<JestRun> {
  const started = performance.now();
  const cpuBefore = childrenCpuMs();
  const child = spawn(process.execPath, [JEST, "--ci", "--colors=false", ...args], {
    cwd: dir,
    env: jestEnv(options.env ?? {}),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  let peak = 0;
  const sampler =
    options.sampleMs && child.pid !== undefined
      ? setInterval(() => (peak = Math.max(peak, treeRss(child.pid!))), options.sampleMs)
      : undefined;
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
  return new Promise((resolve) => {
    child.once("close", (status) => {
      clearTimeout(timer);
      if (sampler) clearInterval(sampler);
      const wallMs = performance.now() - started;
      resolve({ wallMs, cpuMs: childrenCpuMs() - cpuBefore, status, output, peakTreeRss: peak });
    });
  });
}

/**
 * The CPU time of this process's reaped children (cutime + cstime of /proc/self/stat), ms.
 * Linux counts it in clock ticks of 1/100 s.
 */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8")
    .slice(readFileSync("/proc/self/stat", "utf8").lastIndexOf(")") + 2)
    .split(" ");
  // After the command name: state is field 3, cutime field 16 and cstime field 17 (1-based).
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Throws, with the run's output, unless the run passed with `passed` tests. */
export function expectPassed(run: JestRun, passed: number, what: string): void {
  if (run.status !== 0 || !run.output.includes(`${passed} passed, ${passed} total`)) {
    throw new Error(`${what}: expected ${passed} passing tests:\n${run.output.slice(-3000)}`);
  }
}

/** The run folders (`.m3/runs/*`) of the project at `dir`. */
export function runFolders(dir: string): string[] {
  try {
    return readdirSync(join(dir, ".m3", "runs"));
  } catch {
    return [];
  }
}

/**
 * The sessions the kits of the runs in `dir` recorded (all but the runs in `before`): each
 * one's own time (created to closed), ms. Every session must have completed.
 */
export function sessionTimes(dir: string, before: readonly string[] = []): number[] {
  const runs = join(dir, ".m3", "runs");
  const times: number[] = [];
  for (const run of runFolders(dir).filter((one) => !before.includes(one))) {
    const folder = join(runs, run, "executions");
    for (const file of readdirSync(folder)) {
      for (const line of readFileSync(join(folder, file), "utf8").split("\n")) {
        if (line.trim() === "") continue;
        const record = JSON.parse(line) as { durationMs?: number | null; outcome?: string | null };
        if (record.outcome !== "completed") {
          throw new Error(`a session ended ${record.outcome}: ${line.slice(0, 400)}`);
        }
        times.push(record.durationMs ?? Number.NaN);
      }
    }
  }
  return times;
}
