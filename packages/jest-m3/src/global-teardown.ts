/**
 * The preset's `globalTeardown`: stops shared services and kills any child process that
 * outlived its kit, naming it.
 */
import { signalIfSame } from "@jest-m3/core/runner";
import { readRecords, removeLeftoverDirs } from "./run-ledger.js";
import { loadConfig } from "./config.js";
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
  return readRecords<StartedProcess>(dir, "processes");
}

interface TrialsRecord {
  readonly testName: string;
  readonly agent: { harness: string; model: string; version: string | null } | null;
  readonly trials: number;
  readonly passed: number;
  readonly rate: number;
  readonly interval: readonly [number, number];
  readonly need: string;
}

const percent = (value: number): string => `${Math.round(value * 100)}%`;

/** The run's pass rates, per test and agent, when any test ran trials. */
function printPassRates(dir: string): void {
  const records = readRecords<TrialsRecord>(dir, "trials");
  if (records.length === 0) return;
  const lines = records.map(
    (record) =>
      `  ${record.passed}/${record.trials} ${percent(record.rate)} (95% CI ${percent(record.interval[0])}–${percent(record.interval[1])}, needs ${record.need})  ${record.testName}`,
  );
  console.log(`\njest-m3: pass rates\n${lines.join("\n")}`);
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
  printPassRates(dir);
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
