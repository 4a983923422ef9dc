/**
 * The preset's `globalSetup` (Jest's main process, once per run): keeps the reporter in the
 * run, then runs {@link runSetup} (`run-setup.ts`), which hands the run to the workers through
 * `shared/hand-off.ts`.
 *
 * Keeps jest-m3's reporter in the run whatever `reporters` a user sets. Jest replaces a
 * preset's `reporters` with the user's list instead of merging it, so
 * `reporters: ["default", "jest-junit"]` would silently drop the HTML report and the failure
 * transcripts. The preset's global setup therefore runs through {@link globalSetupWithReporter},
 * which adds the reporter back before Jest builds its reporters (Jest 30 runs global setup
 * first, with the same list).
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import runSetup from "./run-setup.js";

/** The reporter module's path. */
export const M3_REPORTER_PATH = join(__dirname, "reporter.js");

/** The reporter's public path (`jest-m3/dist/reporter.js`, which the docs name). */
const PUBLIC_REPORTER_PATH = join(__dirname, "..", "reporter.js");

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
  const mine = new Set([realpath(M3_REPORTER_PATH), realpath(PUBLIC_REPORTER_PATH)]);
  return reporters.some((entry) => {
    const path = typeof entry === "string" ? entry : entry[0];
    return path === M3_REPORTER_PATH || mine.has(realpath(path));
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
  try {
    await runSetup(globalConfig);
  } catch (error) {
    throw withoutRunnerStack(error);
  }
}

/**
 * An error of global setup as the user should read it. Jest prints a global setup error's
 * `stack`: a screen of Jest's own frames under a message that is the whole story for a
 * configuration mistake. jest-m3's own errors (those with a `code`, and those whose
 * message starts with `jest-m3`) keep only their message; any other keeps the frames that
 * are not Jest's or Node's.
 */
export function withoutRunnerStack(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const ours = "code" in error || error.message.startsWith("jest-m3");
  const message = error.message.startsWith("jest-m3") ? error.message : `jest-m3: ${error.message}`;
  const frames = ours
    ? []
    : (error.stack ?? "")
        .split("\n")
        .filter((line) => /^\s+at /.test(line))
        .filter(
          (line) => !/node:internal|[/\\]node_modules[/\\](@jest|jest-[a-z-]+)[/\\]/.test(line),
        );
  // Set before Jest reads it: V8 formats `stack` once, so Jest's "Got error running
  // globalSetup" prefix on the message no longer reaches what it prints.
  error.stack = [`${error.name === "Error" ? "" : `${error.name}: `}${message}`, ...frames].join(
    "\n",
  );
  return error;
}
