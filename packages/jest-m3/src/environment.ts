/**
 * The preset's test environment: Jest's node environment, plus a guard in the worker's own
 * process. When Jest's main process dies without tearing down (SIGINT outside watch mode,
 * a crash), its workers lose their parent and would keep running their sessions. On that
 * disconnect the guard stops every process this worker's kits started (listed in the run
 * folder, checked by start time so a reused pid is never hit) and exits.
 */
import NodeEnvironment from "jest-environment-node";
import { signalIfSame, stillSame } from "@jest-m3/core/runner";
import { readRecords, removeLeftoverDirs } from "./run-ledger.js";
import { ENVIRONMENT_MARK, TEST_DONE_HOOK } from "./environment-hooks.js";
import { RUN_ENV } from "./run-state.js";
import { condenseErrorText } from "./transcript.js";

let guarded = false;

function stopThisWorkersProcesses(dir: string): void {
  const ours = readRecords<{ pid: number; startTicks?: string | null }>(
    dir,
    "processes",
    process.pid,
  ).map((entry) => ({ pid: entry.pid, startTime: entry.startTicks }));
  // Synchronous on purpose: the worker exits right after this, on its parent's disconnect.
  signalIfSame(ours, "SIGTERM");
  const deadline = Date.now() + 300;
  while (Date.now() < deadline && ours.some(stillSame)) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  signalIfSame(ours, "SIGKILL");
}

function guardWorker(): void {
  if (guarded || typeof process.send !== "function") return;
  guarded = true;
  // Polled with an unref'd timer, not a "disconnect" listener: a listener keeps the IPC
  // channel referenced, so a finished worker could not exit on its own and Jest printed
  // "A worker process has failed to exit gracefully" after every clean run.
  const check = setInterval(() => {
    if (process.connected) return;
    clearInterval(check);
    const dir = process.env[RUN_ENV.runDir];
    if (dir) {
      stopThisWorkersProcesses(dir);
      removeLeftoverDirs(dir, process.pid);
    }
    process.exit(1);
  }, 250);
  check.unref();
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

/** `testEnvironment` of the preset. Replace it only with one that extends it. */
export default class M3Environment extends NodeEnvironment {
  constructor(...args: ConstructorParameters<typeof NodeEnvironment>) {
    super(...args);
    guardWorker();
    (this.global as unknown as Record<symbol, unknown>)[ENVIRONMENT_MARK] = true;
  }

  /** After a test's afterEach hooks: the setup file closes the kits it left open. */
  async handleTestEvent(event: {
    name: string;
    error?: unknown;
    test?: { errors?: unknown[] };
  }): Promise<void> {
    if (event.name === "test_fn_failure" || event.name === "hook_failure") {
      condenseThrown(event.error);
      return;
    }
    if (event.name !== "test_done") return;
    const hook = (this.global as unknown as Record<symbol, unknown>)[TEST_DONE_HOOK];
    if (typeof hook === "function") {
      await (hook as (done: { timedOut: boolean }) => Promise<void>)({
        timedOut: timedOut(event.test?.errors ?? []),
      });
    }
  }
}
