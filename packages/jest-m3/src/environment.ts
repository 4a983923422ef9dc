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
  process.once("disconnect", () => {
    const dir = process.env[RUN_ENV.runDir];
    if (dir) {
      stopThisWorkersProcesses(dir);
      removeLeftoverDirs(dir, process.pid);
    }
    process.exit(1);
  });
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
  async handleTestEvent(event: { name: string; test?: { errors?: unknown[] } }): Promise<void> {
    if (event.name !== "test_done") return;
    const hook = (this.global as unknown as Record<symbol, unknown>)[TEST_DONE_HOOK];
    if (typeof hook === "function") {
      await (hook as (done: { timedOut: boolean }) => Promise<void>)({
        timedOut: timedOut(event.test?.errors ?? []),
      });
    }
  }
}
