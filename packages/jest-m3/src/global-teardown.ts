/**
 * The preset's `globalTeardown`: stops shared services and kills any child process that
 * outlived its kit, naming it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "@jest-m3/core";
import { processStartTicks } from "./process-ledger.js";
import { runDir } from "./run-state.js";
import { SHARED_SERVICES } from "./shared-services.js";

export interface StartedProcess {
  readonly pid: number;
  readonly label: string;
  readonly command: string;
  readonly testPath?: string;
  readonly testName?: string;
  readonly startTicks?: string | null;
}

/** Every process the workers' kits reported starting in this run. */
export function startedProcesses(dir: string): StartedProcess[] {
  const folder = join(dir, "processes");
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((file) =>
    readFileSync(join(folder, file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StartedProcess),
  );
}

export default async function globalTeardown(): Promise<void> {
  await Promise.all(SHARED_SERVICES.splice(0).map((stop) => stop().catch(() => undefined)));
  const dir = runDir();
  if (!dir) return;
  // Same id and same start time: the very process a kit started, not a reused id.
  const survivors = startedProcesses(dir).filter(
    (child) =>
      isProcessAlive(child.pid) &&
      child.startTicks != null &&
      processStartTicks(child.pid) === child.startTicks,
  );
  for (const child of survivors) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // Gone in the meantime.
    }
  }
  if (survivors.length > 0) {
    console.warn(
      `\njest-m3: ${survivors.length} process(es) outlived their kit and were killed:\n` +
        survivors
          .map(
            (child) =>
              `  - ${child.label} (pid ${child.pid}, ${child.command}) from ${child.testName ?? "?"}`,
          )
          .join("\n"),
    );
  }
}
