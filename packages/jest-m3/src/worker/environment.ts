/**
 * The preset's test environment: Jest's node environment, plus a guard in the process that
 * runs the tests.
 *
 * - In a worker: when Jest's main process dies without tearing down (SIGINT outside watch
 *   mode, a crash), its workers lose their parent and would keep running their sessions.
 *   On that disconnect the guard stops every process this worker's kits started and exits.
 *   On SIGINT or SIGTERM (Ctrl-C in a terminal signals Jest's whole process group, workers
 *   included) it stops them too, with their process groups, removes the kits' folders and
 *   ends by the signal.
 * - In Jest's main process (`--runInBand`, or a single test file): Jest has no handler for
 *   SIGINT or SIGTERM outside watch mode, so the process would die at once, leaving behind
 *   whatever its kits started (a server that ignores EOF and SIGTERM keeps running) and
 *   their temporary folders. The guard handles both signals: it stops those processes,
 *   removes those folders, notes what it did in the run folder, and then lets the signal
 *   end the process as it would have.
 *
 * Either way the processes come from the run folder's ledger, checked by start time so a
 * reused pid is never hit, and only folders directly in the system temp folder are removed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import NodeEnvironment from "jest-environment-node";
import { markWriterExited, stopRecordedSync } from "../shared/run-ledger.js";
import {
  ENVIRONMENT_MARK,
  FILE_DONE_HOOK,
  SCRUB_HOOK,
  TEST_DONE_HOOK,
  TEST_SKIPPED_HOOK,
} from "./environment-hooks.js";
import { RUN_ENV } from "../shared/hand-off.js";
import { condenseErrorText } from "../shared/transcript.js";

/** Written into the run folder when a signal ended Jest's main process mid-run. */
export const RUN_INTERRUPTED = "interrupted.json";

let guarded = false;

/**
 * Stops every process this process's kits started, with their process groups (SIGTERM, a
 * short grace, then SIGKILL) and removes their temporary folders. Synchronous on purpose:
 * the process exits right after. Returns what it stopped and removed.
 */
function cleanUpThisProcess(dir: string): { stopped: number[]; removed: string[] } {
  return stopRecordedSync(dir, [process.pid]);
}

function guardWorker(): void {
  // Polled with an unref'd timer, not a "disconnect" listener: a listener keeps the IPC
  // channel referenced, so a finished worker could not exit on its own and Jest printed
  // "A worker process has failed to exit gracefully" after every clean run.
  const check = setInterval(() => {
    if (process.connected) return;
    clearInterval(check);
    const dir = process.env[RUN_ENV.runDir];
    if (dir) cleanUpThisProcess(dir);
    process.exit(1);
  }, 250);
  check.unref();
  // Ctrl-C in a terminal signals Jest's whole process group, its workers too, but not the
  // kits' processes (each leads its own group): an agent that does not exit on the end of
  // its stdin while a call is pending (Claude Code) would run on, with its relay and server.
  // The worker stops them and removes its kits' folders, then ends by the signal.
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const name of ["SIGINT", "SIGTERM"] as const) process.removeListener(name, onSignal);
    const dir = process.env[RUN_ENV.runDir];
    if (dir) cleanUpThisProcess(dir);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A worker that ends normally says so; one that was killed cannot, and Jest's main process
  // then cleans up after it (run-guard.ts).
  process.once("exit", () => {
    const dir = process.env[RUN_ENV.runDir];
    if (!dir) return;
    try {
      markWriterExited(dir);
    } catch {
      // The run folder is gone.
    }
  });
}

function guardMainProcess(): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const name of ["SIGINT", "SIGTERM"] as const) process.removeListener(name, onSignal);
    const dir = process.env[RUN_ENV.runDir];
    if (dir) {
      const { stopped, removed } = cleanUpThisProcess(dir);
      try {
        writeFileSync(
          join(dir, RUN_INTERRUPTED),
          JSON.stringify({ signal, at: new Date().toISOString(), stopped, removed }),
        );
      } catch {
        // The run folder is gone: nothing to note.
      }
      process.stderr.write(
        `\njest-m3: ${signal}: stopped ${stopped.length} process(es) the run's kits started and removed ${removed.length} temporary folder(s).\n`,
      );
    }
    // End as the signal would have, unless someone else took it over.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

/** Installs the guard that fits this process, once. */
function guardProcess(): void {
  if (guarded) return;
  guarded = true;
  if (typeof process.send === "function") guardWorker();
  else guardMainProcess();
}

/**
 * A kit error thrown out of a test, as Jest will print it: the server's failure first,
 * the harness's stderr once and without known noise (see `condenseErrorText`), and no
 * `Cause:` chain that repeats the same text. Only errors of the kit (a `code` starting
 * with `M3_`) that carry stderr sections are touched; the run's report keeps the full text.
 */
function condenseThrown(error: unknown): void {
  if (typeof error !== "object" || error === null) return;
  const thrown = error as { code?: unknown; message?: unknown; stack?: unknown; cause?: unknown };
  if (typeof thrown.code !== "string" || !thrown.code.startsWith("M3_")) return;
  if (typeof thrown.message !== "string" || !/\n--- .+ ---/.test(thrown.message)) return;
  const condensed = condenseErrorText(thrown.message);
  const frames =
    typeof thrown.stack === "string"
      ? thrown.stack.split("\n").filter((line) => /^\s+at /.test(line))
      : [];
  const name = (error as { name?: unknown }).name;
  try {
    thrown.message = condensed;
    thrown.stack = [`${typeof name === "string" ? name : "Error"}: ${condensed}`, ...frames].join(
      "\n",
    );
    // A cause whose story the message already tells (a harness error wrapped by core).
    let cause = thrown.cause as { message?: unknown; cause?: unknown } | undefined;
    while (cause && typeof cause.message === "string") {
      const first = cause.message.split("\n")[0] ?? "";
      if (!condensed.includes(first.slice(-120))) break;
      cause = cause.cause as typeof cause;
    }
    if (cause === undefined) delete thrown.cause;
    else thrown.cause = cause;
  } catch {
    // A frozen error: Jest prints it as it is.
  }
}

/**
 * Replaces, in place, every secret value in a thrown error: its message, stack, every
 * string it holds (a matcher's `matcherResult`, a protocol error's `data`), its `cause`
 * chain and an AggregateError's `errors`, however deep. Jest formats the error afterwards,
 * so its console, its `--json` output and every reporter (JUnit's too) get only names.
 */
function scrubThrown(error: unknown, scrub: (text: string) => string): unknown {
  const seen = new Set<object>();
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return scrub(value);
    if (typeof value !== "object" || value === null || depth > 8 || seen.has(value)) return value;
    seen.add(value);
    const holder = value as Record<string, unknown>;
    const keys = new Set(Object.keys(holder));
    // Not `instanceof Error`: the test's errors come from its sandbox, another realm.
    if (Object.prototype.toString.call(value) === "[object Error]") {
      for (const key of ["message", "stack", "cause"]) keys.add(key);
    }
    for (const key of keys) {
      try {
        const entry = holder[key];
        if (entry === undefined) continue;
        const clean = walk(entry, depth + 1);
        if (clean !== entry) holder[key] = clean;
      } catch {
        // A frozen error or a getter: Jest prints that part as it is.
      }
    }
    return value;
  };
  return walk(error, 0);
}

/** True when Jest's own timeout ended the test (its error is "Exceeded timeout of ..."). */
function timedOut(errors: readonly unknown[]): boolean {
  return errors.some((entry) =>
    (Array.isArray(entry) ? entry : [entry]).some(
      // The error comes from the test's sandbox (another realm): no instanceof.
      (error) =>
        /^Exceeded timeout of/.test(
          String(typeof error === "object" && error !== null ? (error as Error).message : error),
        ),
    ),
  );
}

/** The part of a jest-circus test entry the environment reads. */
interface CircusTest {
  readonly name?: string;
  readonly errors?: unknown[];
  readonly parent?: CircusTest;
}

/** A test's full name as Jest's snapshots know it: describe names and its own, by spaces. */
function fullTestName(test: CircusTest): string {
  const names: string[] = [];
  for (let node: CircusTest | undefined = test; node?.parent; node = node.parent) {
    names.unshift(node.name ?? "");
  }
  return names.join(" ");
}

/** `testEnvironment` of the preset. Replace it only with one that extends it. */
export default class M3Environment extends NodeEnvironment {
  constructor(...args: ConstructorParameters<typeof NodeEnvironment>) {
    super(...args);
    guardProcess();
    (this.global as unknown as Record<symbol, unknown>)[ENVIRONMENT_MARK] = true;
  }

  /** After a test's afterEach hooks: the setup file closes the kits it left open. */
  async handleTestEvent(event: {
    name: string;
    error?: unknown;
    test?: CircusTest;
  }): Promise<void> {
    if ((event.name === "test_skip" || event.name === "test_todo") && event.test) {
      const hook = (this.global as unknown as Record<symbol, unknown>)[TEST_SKIPPED_HOOK];
      if (typeof hook === "function") (hook as (name: string) => void)(fullTestName(event.test));
      return;
    }
    const scrub = (this.global as unknown as Record<symbol, unknown>)[SCRUB_HOOK];
    if (event.name === "test_fn_failure" || event.name === "hook_failure") {
      condenseThrown(event.error);
      if (typeof scrub === "function") scrubThrown(event.error, scrub as (text: string) => string);
      return;
    }
    if (event.name === "run_finish") {
      const hook = (this.global as unknown as Record<symbol, unknown>)[FILE_DONE_HOOK];
      if (typeof hook === "function") await (hook as () => Promise<void>)();
      return;
    }
    if (event.name !== "test_done") return;
    // Every error the test failed with (soft assertions, an afterEach's, a thrown string),
    // before Jest formats them.
    if (typeof scrub === "function" && event.test) {
      const errors = (event.test.errors ?? []) as unknown[];
      for (let i = 0; i < errors.length; i++) {
        errors[i] = scrubThrown(errors[i], scrub as (text: string) => string);
      }
    }
    const hook = (this.global as unknown as Record<symbol, unknown>)[TEST_DONE_HOOK];
    if (typeof hook === "function") {
      await (hook as (done: { timedOut: boolean }) => Promise<void>)({
        timedOut: timedOut(event.test?.errors ?? []),
      });
    }
  }
}
