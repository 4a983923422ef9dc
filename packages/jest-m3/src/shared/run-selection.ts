/**
 * A run's test selection: what the command line chose of the suite (the test path patterns,
 * the test name pattern, Jest's git and last-run filters, the projects that ran). Two runs
 * compare like with like when their selections are the same: `jest-m3 diff` takes its
 * default baseline among those (a run of one file is no baseline for the whole suite). A
 * run's shards do not change its selection: the merge of every shard of `--shard=k/n`
 * selected what the unsharded run selects; a merge with shards missing is partial.
 */

/** What a run selected of the suite. */
export interface RunSelection {
  /** Jest's test path patterns (the files or patterns on the command line), sorted. */
  readonly patterns: readonly string[];
  /** `--testNamePattern`, or null. */
  readonly testNamePattern: string | null;
  /** Jest's other filters in force: `onlyChanged`, `changedSince <ref>`, `lastCommit`, `onlyFailures`, `findRelatedTests <paths>`. */
  readonly filters: readonly string[];
  /** The projects (display names) whose tests ran, sorted; empty when none is named. */
  readonly projects: readonly string[];
}

/**
 * The shards of a merged run: `count` from `--shard=k/count`, the `merged` ones and the
 * `missing` ones (1-based, sorted). A run with shards missing is partial.
 */
export interface MergedShards {
  readonly count: number;
  readonly merged: readonly number[];
  readonly missing: readonly number[];
}

/** The part of Jest's global configuration a selection is read from. */
export interface SelectionConfig {
  readonly testPathPatterns?: { readonly patterns?: readonly string[] } | readonly string[];
  readonly testNamePattern?: string | null;
  readonly onlyChanged?: boolean;
  readonly changedSince?: string | null;
  readonly lastCommit?: boolean;
  readonly onlyFailures?: boolean;
  readonly findRelatedTests?: boolean;
  readonly nonFlagArgs?: readonly string[];
}

/** The selection of a run from Jest's global configuration and the projects its tests ran in. */
export function selectionOf(
  config: SelectionConfig | undefined,
  projects: Iterable<string> = [],
): RunSelection {
  const given = config?.testPathPatterns;
  const patterns = Array.isArray(given)
    ? (given as readonly string[])
    : ((given as { patterns?: readonly string[] } | undefined)?.patterns ?? []);
  const filters: string[] = [];
  if (config?.onlyChanged) filters.push("onlyChanged");
  if (config?.changedSince) filters.push(`changedSince ${config.changedSince}`);
  if (config?.lastCommit) filters.push("lastCommit");
  if (config?.onlyFailures) filters.push("onlyFailures");
  if (config?.findRelatedTests) {
    filters.push(`findRelatedTests ${[...(config.nonFlagArgs ?? [])].sort().join(" ")}`.trim());
  }
  return {
    patterns: [...new Set(patterns)].sort(),
    testNamePattern: config?.testNamePattern || null,
    filters,
    projects: [...new Set(projects)].sort(),
  };
}

/** A selection as one string: equal strings, equal selections (the history's `selection`). */
export function selectionKey(selection: RunSelection): string {
  return JSON.stringify([
    selection.patterns,
    selection.testNamePattern,
    selection.filters,
    selection.projects,
  ]);
}

/** A selection in words: `the whole suite`, or its patterns, name pattern, filters and projects. */
export function describeSelection(selection: RunSelection): string {
  const parts = [
    ...(selection.patterns.length > 0 ? [`files matching ${selection.patterns.join(", ")}`] : []),
    ...(selection.testNamePattern ? [`tests named /${selection.testNamePattern}/`] : []),
    ...selection.filters.map((filter) => `--${filter}`),
    ...(selection.projects.length > 0 ? [`projects ${selection.projects.join(", ")}`] : []),
  ];
  return parts.length === 0 ? "the whole suite" : parts.join(" · ");
}
