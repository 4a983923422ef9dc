/**
 * `jest-m3 diff [--baseline <run id|previous|last-green|pool:K>] [--alpha <a>] [<run id>]`:
 * what changed between a run and its baseline in the history, decided by statistics. Exit
 * code: 0 nothing regressed, 1 a verdict `regressed` or a test failing its requirement (see
 * {@link RunDiff.regressions}; with `--strict`, any change), 2 nothing to compare (a usage
 * mistake, no history, an unknown run, a damaged or foreign history file).
 */
import { join } from "node:path";
import { M3Error } from "@jest-m3/core";
import { readHistory, HISTORY_FILE } from "../store/history.js";
import {
  DEFAULT_CATALOG_GROWTH,
  diffRuns,
  historyRuns,
  resolveBaseline,
  resolveRun,
  type RunDiff,
} from "../store/diff.js";
import { formatDiff } from "../store/diff-format.js";
import { runsFolder } from "./show-report.js";
import type { CliIo } from "./io.js";

/** The options of `jest-m3 diff`. */
export interface DiffArgs {
  /** The run to compare (default: the latest). */
  readonly run?: string;
  /** The run(s) to compare with: an id, `last-green`, `previous` (default) or `pool:K`. */
  readonly baseline: string;
  /** The significance level, family-wise over the run (default 0.05). */
  readonly alpha: number;
  readonly results?: string;
  readonly json: boolean;
  readonly strict: boolean;
  /** p95 turn latency ratio from which a change is listed (default 1.5). */
  readonly latencyRatio: number;
  /** Catalog context cost ratio from which a catalog counts as dearer (default 1.10). */
  readonly catalogGrowth: number;
}

/** Parses `jest-m3 diff`'s arguments; a string is a usage mistake. */
export function parseDiffArgs(args: readonly string[]): DiffArgs | string {
  let run: string | undefined;
  let baseline = "previous";
  let results: string | undefined;
  let json = false;
  let strict = false;
  let latencyRatio = 1.5;
  let catalogGrowth = DEFAULT_CATALOG_GROWTH;
  let alpha = 0.05;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const value = (): string | undefined => args[++index];
    if (arg === "--baseline") {
      const given = value();
      if (!given || given.startsWith("-")) {
        return "--baseline needs a run id, previous, last-green or pool:K (K runs pooled)";
      }
      baseline = given;
    } else if (arg === "--results") {
      const given = value();
      if (!given) return "--results needs a folder";
      results = given;
    } else if (arg === "--json") json = true;
    else if (arg === "--strict") strict = true;
    else if (arg === "--alpha") {
      const given = Number(value());
      if (!(given > 0 && given < 1)) {
        return "--alpha needs a significance level between 0 and 1 (e.g. 0.05)";
      }
      alpha = given;
    } else if (arg === "--latency-ratio") {
      const ratio = Number(value());
      if (!Number.isFinite(ratio) || ratio <= 1)
        return "--latency-ratio needs a number above 1 (e.g. 1.5)";
      latencyRatio = ratio;
    } else if (arg === "--catalog-growth") {
      const ratio = Number(value());
      if (!Number.isFinite(ratio) || ratio <= 1)
        return "--catalog-growth needs a ratio above 1 (e.g. 1.10: a catalog 10% dearer counts)";
      catalogGrowth = ratio;
    } else if (arg.startsWith("-")) return `unknown option ${arg}`;
    else if (run === undefined) run = arg;
    else return `unexpected argument ${arg}`;
  }
  return {
    ...(run ? { run } : {}),
    baseline,
    alpha,
    ...(results ? { results } : {}),
    json,
    strict,
    latencyRatio,
    catalogGrowth,
  };
}

const changes = (diff: RunDiff): number =>
  diff.flipped.length +
  diff.added.length +
  diff.removed.length +
  diff.verdicts.filter((row) => row.verdict !== "unchanged").length +
  diff.metrics.filter((row) => row.verdict !== "unchanged").length +
  diff.catalogs.length +
  diff.catalogCosts.length +
  diff.newCalls.length +
  diff.vanishedCalls.length;

/** Runs `jest-m3 diff`; returns the exit code. */
export async function runDiff(args: DiffArgs, io: CliIo): Promise<number> {
  const store = join(runsFolder(io.cwd, args.results), "..", HISTORY_FILE);
  let db;
  try {
    db = await readHistory(store);
  } catch (error) {
    if (error instanceof M3Error) {
      io.err(`jest-m3 diff: ${error.message} [${error.code}]\n`);
      return 2;
    }
    throw error;
  }
  try {
    const runs = historyRuns(db);
    const run = resolveRun(runs, args.run ?? "last");
    const baseline = resolveBaseline(runs, args.baseline, run);
    if (baseline.some((earlier) => earlier.id === run.id)) {
      io.err(`jest-m3 diff: the baseline and the run are the same run (${run.id}).\n`);
      return 2;
    }
    const diff = diffRuns(
      db,
      baseline,
      run,
      {
        alpha: args.alpha,
        latencyRatio: args.latencyRatio,
        latencyMinMs: 100,
        catalogGrowth: args.catalogGrowth,
      },
      args.baseline,
    );
    io.out(args.json ? `${JSON.stringify(diff, null, 2)}\n` : `${formatDiff(diff)}\n`);
    if (diff.regressions.length > 0) return 1;
    return args.strict && changes(diff) > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof M3Error) {
      io.err(`jest-m3 diff: ${error.message} [${error.code}]\n`);
      return 2;
    }
    throw error;
  } finally {
    db.close();
  }
}
