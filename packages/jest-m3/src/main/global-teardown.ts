/**
 * The preset's `globalTeardown`: stops shared services and kills any child process that
 * outlived its kit, naming it.
 */
import { signalIfSame } from "@jest-m3/core/lean";
import { readRecords, removeLeftoverDirs } from "../shared/run-ledger.js";
import { loadConfig } from "../shared/config.js";
import { recordRunEnded } from "./run-guard.js";
import { runDir } from "../shared/hand-off.js";
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
  return readRecords<StartedProcess>(dir, "processes");
}

export default async function globalTeardown(globalConfig: {
  readonly rootDir: string;
}): Promise<void> {
  await Promise.all(SHARED_SERVICES.splice(0).map((stop) => stop().catch(() => undefined)));
  const dir = runDir();
  if (!dir) return;
  // Same id and same start time: the very process a kit started, not a reused id.
  const started = startedProcesses(dir);
  const killed = new Set(
    signalIfSame(
      started.map((child) => ({ pid: child.pid, startTime: child.startTicks })),
      "SIGKILL",
    ),
  );
  const survivors = started.filter((child) => killed.has(child.pid));
  // Temporary folders of kits that never closed (a killed worker): a Codex home there may
  // hold a copy of the host's login.
  const leftovers = removeLeftoverDirs(dir);
  if (leftovers.length > 0) {
    console.warn(
      `\njest-m3: removed ${leftovers.length} temporary folder(s) of kits that never closed.`,
    );
  }
  // Everything the run left is stopped and removed: no later run's sweep needs to mark it.
  recordRunEnded(dir);
  if (survivors.length === 0) return;
  const report =
    `jest-m3: ${survivors.length} process(es) started by the suite outlived their kit and were killed:\n` +
    survivors
      .map(
        (child) =>
          `  - ${child.label} (pid ${child.pid}, ${child.command}) from "${child.testName ?? "?"}"`,
      )
      .join("\n") +
    "\nClose every kit (await using kit = new MCPTestKit()) and every session; a leak here is a bug.";
  if (loadConfig(globalConfig.rootDir).orphans === "warn") {
    console.warn(`\n${report}`);
    return;
  }
  throw new Error(report);
}
