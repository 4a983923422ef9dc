/**
 * Keeps jest-m3's reporter in the run whatever `reporters` a user sets. Jest replaces a
 * preset's `reporters` with the user's list instead of merging it, so
 * `reporters: ["default", "jest-junit"]` would silently drop the HTML report and the failure
 * transcripts. The preset's global setup therefore runs through {@link globalSetupWithReporter},
 * which adds the reporter back before Jest builds its reporters (Jest 30 runs global setup
 * first, with the same list).
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import globalSetup from "../global-setup.js";

/** The reporter module's path. */
export const M3_REPORTER_PATH = join(__dirname, "..", "reporter.js");

type ReporterEntry = string | readonly [string, unknown];

/** The part of Jest's global configuration this module reads. */
export interface ReporterConfig {
  readonly rootDir: string;
  readonly reporters?: ReporterEntry[] | null;
}

const realpath = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** True when `reporters` already holds jest-m3's reporter (by any path to the same file). */
export function hasM3Reporter(reporters: readonly ReporterEntry[]): boolean {
  const mine = realpath(M3_REPORTER_PATH);
  return reporters.some((entry) => {
    const path = typeof entry === "string" ? entry : entry[0];
    return path === M3_REPORTER_PATH || realpath(path) === mine;
  });
}

/**
 * Adds jest-m3's reporter to Jest's reporter list when the user's configuration left it
 * out. Returns what happened: `present`, `added`, or `cannot` (a list Jest no longer lets
 * us change: then a warning says how to add it by hand).
 */
export function ensureM3Reporter(config: ReporterConfig): "present" | "added" | "cannot" {
  const reporters = config.reporters;
  if (Array.isArray(reporters) && hasM3Reporter(reporters)) return "present";
  if (Array.isArray(reporters) && !Object.isFrozen(reporters)) {
    reporters.push([M3_REPORTER_PATH, {}]);
    return "added";
  }
  console.warn(
    "jest-m3: your Jest configuration's \"reporters\" leaves out jest-m3's reporter, so this run " +
      'writes no HTML report and prints no agent transcripts. Add "jest-m3/dist/reporter.js" to ' +
      "your reporters (see docs/reports.md).",
  );
  return "cannot";
}

/** The preset's `globalSetup`: the reporter kept in the run, then jest-m3's global setup. */
export default async function globalSetupWithReporter(globalConfig: ReporterConfig): Promise<void> {
  ensureM3Reporter(globalConfig);
  await globalSetup(globalConfig);
}
