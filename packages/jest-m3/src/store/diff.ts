/**
 * What changed between a run and its baseline (one run, or several pooled): verdicts on pass
 * counts and on turn latency per test and agent, decided by statistics suited to small
 * samples; failing and flipped tests, tool-catalog changes per server, calls that appeared
 * or vanished. Computed from the history alone, so any runs compare, whenever they ran.
 */
import { M3Error } from "@jest-m3/core";
import type { PassCounts } from "../stats/fisher.js";
import { queryRows, type SqlDatabase, type SqlValue } from "./engine.js";
import { metricVerdicts, type MetricSamples, type MetricVerdict } from "./metric-verdicts.js";
import {
  byCodePoint,
  DEFAULT_ALPHA,
  PASS_METHOD,
  passVerdicts,
  type PassComparison,
  type PassVerdict,
} from "./pass-verdicts.js";

/** A run as the history lists it. */
export interface HistoryRun {
  readonly id: string;
  readonly seq: number;
  readonly finishedAt: string;
  readonly success: boolean;
  /**
   * The run's test selection as one string (see `RunSelection`): runs with equal ones ran
   * the same part of the suite. Empty for a run recorded before selections were.
   */
  readonly selection?: string;
  /** The selection in words (`the whole suite`, `files matching a.test.ts`), when known. */
  readonly selectionLabel?: string | null;
  /** A merge with shards missing (`merge-reports --allow-partial`). */
  readonly partial?: boolean;
  /** A partial run's missing shards, of `shardCount`. */
  readonly missingShards?: readonly number[];
  readonly shardCount?: number | null;
}

/** A run asked for is not in the history. */
export class RunNotInHistory extends M3Error {
  override readonly code = "M3_RUN_NOT_IN_HISTORY";
}

/** Every run of the history, oldest first. */
export function historyRuns(db: SqlDatabase): HistoryRun[] {
  return queryRows(
    db,
    `SELECT id, seq, finished_at, success, selection, selection_label, partial, missing_shards,
     shard_count FROM runs ORDER BY seq`,
  ).map((row) => ({
    id: String(row.id),
    seq: Number(row.seq),
    finishedAt: String(row.finished_at),
    success: row.success === 1,
    selection: String(row.selection ?? ""),
    selectionLabel: row.selection_label === null ? null : String(row.selection_label),
    partial: row.partial === 1,
    missingShards:
      typeof row.missing_shards === "string" && row.missing_shards !== ""
        ? row.missing_shards.split(",").map(Number)
        : [],
    shardCount: row.shard_count === null ? null : Number(row.shard_count),
  }));
}

/** A partial run's missing shards in words: `shard(s) 2, 3 of 3 missing`. */
export const missingShardsOf = (run: HistoryRun): string =>
  `shard(s) ${(run.missingShards ?? []).join(", ")} of ${run.shardCount ?? "?"} missing`;

const selectionOfRun = (run: HistoryRun): string => run.selectionLabel ?? "selection not recorded";

const listed = (runs: readonly HistoryRun[]): string =>
  runs.length === 0
    ? "none"
    : runs
        .slice(-8)
        .map(
          (run) =>
            `${run.id} (${run.success ? "green" : "red"}${run.selectionLabel ? `, ${run.selectionLabel}` : ""}${run.partial ? `, partial: ${missingShardsOf(run)}` : ""})`,
        )
        .join(", ");

/**
 * True when `other` is a default baseline for `run`: complete (not partial) and of the same
 * test selection. A baseline named by its id may be anything; the diff then says how it
 * differs (see {@link RunDiff.baselineNotes}).
 */
export const comparableTo =
  (run: HistoryRun) =>
  (other: HistoryRun): boolean =>
    !other.partial && (other.selection ?? "") === (run.selection ?? "");

/**
 * The run `spec` names: a run id or its unique prefix, `last` (the latest), `previous` (the
 * one before `before`), or `last-green` (the latest successful run before `before`). With
 * `before`, `previous` and `last-green` look only at complete runs of its test selection
 * (see {@link comparableTo}): a run of one file, or a partial merge, is no baseline.
 *
 * @throws RunNotInHistory saying which runs there are.
 */
export function resolveRun(
  runs: readonly HistoryRun[],
  spec: string,
  before?: HistoryRun,
): HistoryRun {
  const earlier = before
    ? runs.filter((run) => run.seq < before.seq).filter(comparableTo(before))
    : runs;
  let found: HistoryRun | undefined;
  if (spec === "last") found = runs.at(-1);
  else if (spec === "previous") found = earlier.at(-1);
  else if (spec === "last-green") found = earlier.filter((run) => run.success).at(-1);
  else {
    const exact = runs.find((run) => run.id === spec);
    const prefixed = runs.filter((run) => run.id.startsWith(spec));
    if (!exact && prefixed.length > 1) {
      throw new RunNotInHistory(
        `More than one run starts with "${spec}": ${prefixed.map((run) => run.id).join(", ")}. Give more of the id.`,
      );
    }
    found = exact ?? prefixed[0];
  }
  if (!found) {
    // Said only when earlier runs exist that are not like it.
    const like =
      before && runs.some((run) => run.seq < before.seq && !comparableTo(before)(run))
        ? ` of the same selection (${selectionOfRun(before)}), complete,`
        : "";
    const what =
      spec === "last-green"
        ? `No green run${like}${before ? ` before ${before.id}` : ""}`
        : spec === "previous"
          ? `No run${like} before ${before?.id ?? "the latest"}`
          : spec === "last"
            ? "No run"
            : `No run "${spec}"`;
    const anyway =
      like && (spec === "previous" || spec === "last-green")
        ? " To compare with another run anyway, name it: --baseline <run id> (the diff then says how the two differ)."
        : "";
    throw new RunNotInHistory(`${what} in the history. Runs: ${listed(runs)}.${anyway}`);
  }
  return found;
}

/**
 * The runs a baseline spec names, oldest first: one run for a run id, `previous` or
 * `last-green` (see {@link resolveRun}); for `pool:K`, the K complete runs of `run`'s
 * selection before it (fewer when the history has fewer), whose pass counts are pooled.
 *
 * @throws RunNotInHistory when none is there, or `pool:K` is not a whole K ≥ 1.
 */
export function resolveBaseline(
  runs: readonly HistoryRun[],
  spec: string,
  run: HistoryRun,
): HistoryRun[] {
  const pool = /^pool:(.*)$/.exec(spec);
  if (!pool) return [resolveRun(runs, spec, run)];
  const size = Number(pool[1]);
  if (!Number.isInteger(size) || size < 1) {
    throw new RunNotInHistory(
      `--baseline ${spec}: K in pool:K must be a whole number of runs ≥ 1 (e.g. pool:5).`,
    );
  }
  const before = runs.filter((other) => other.seq < run.seq);
  const earlier = before.filter(comparableTo(run)).slice(-size);
  if (earlier.length === 0) {
    throw new RunNotInHistory(
      before.length === 0
        ? `No run before ${run.id} in the history to pool. Runs: ${listed(runs)}.`
        : `No complete run of the same selection (${selectionOfRun(run)}) before ${run.id} in the history to pool. Runs: ${listed(runs)}.`,
    );
  }
  return earlier;
}

/** A test whose verdict changed. */
export interface FlippedTest {
  readonly test: string;
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

/** A change to one server's tool catalog. */
export interface CatalogChange {
  readonly server: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Tools whose input or output schema changed. */
  readonly schemaChanged: readonly string[];
  /** Tools whose description changed. */
  readonly descriptionChanged: readonly string[];
}

/**
 * The context cost of one server's tool catalog on one agent, in the baseline and in the
 * run: the bytes of the tool definitions the agent sent its model (provider tap), listed
 * when it grew or shrank by the catalog growth ratio or more.
 */
export interface CatalogCostChange {
  readonly server: string;
  /** `harness · model`. */
  readonly agent: string;
  readonly change: "grew" | "shrank";
  readonly baseline: {
    readonly bytes: number;
    readonly estimatedTokens: number;
    readonly tools: number;
  };
  readonly run: {
    readonly bytes: number;
    readonly estimatedTokens: number;
    readonly tools: number;
  };
  /** run bytes / baseline bytes. */
  readonly ratio: number;
}

/** Calls of a test to a server's tool that appeared or vanished. */
export interface CallChange {
  readonly test: string;
  readonly server: string;
  readonly tool: string;
  readonly from: number;
  readonly to: number;
}

/** The statistics the verdicts were made with, named in the output. */
export interface DiffStatistics {
  /** The significance level: the chance of any false alarm in the whole run at most this. */
  readonly alpha: number;
  readonly passMethod: string;
  /** Test-and-agent pairs compared (the m of the correction). */
  readonly passComparisons: number;
  readonly metricMethod: string;
  readonly metricComparisons: number;
  /** How judge scores were compared, and how many test-and-agent pairs. */
  readonly scoreMethod: string;
  readonly scoreComparisons: number;
  /** The least move of the median that counts. */
  readonly scoreMinChange: number;
  /** The ratio from which a catalog's context cost counts as grown (or shrunk, by its inverse). */
  readonly catalogGrowth: number;
}

/** What changed from the baseline to `run`. */
export interface RunDiff {
  /** The baseline as asked for: `previous`, `last-green`, a run id, `pool:K`. */
  readonly baselineSpec: string;
  /** The latest baseline run (the only one unless pooled). */
  readonly baseline: HistoryRun;
  /** Every baseline run whose counts were pooled, oldest first. */
  readonly baselineRuns: readonly HistoryRun[];
  readonly run: HistoryRun;
  readonly statistics: DiffStatistics;
  /** Per test and agent, in order: regressed, undecided, flaky, improved, unchanged. */
  readonly verdicts: readonly PassVerdict[];
  /** Turn latency per test and agent. */
  readonly metrics: readonly MetricVerdict[];
  /** Judge scores (`toPassJudge`) per test and agent, higher better, by their median. */
  readonly scores: readonly MetricVerdict[];
  /** Tests of the run that failed their own requirement (their Jest verdict is failed). */
  readonly failing: readonly FlippedTest[];
  readonly flipped: readonly FlippedTest[];
  /** Tests only in one of the sides. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly catalogs: readonly CatalogChange[];
  /** Catalog context costs that moved by the growth ratio (see {@link DiffOptions.catalogGrowth}). */
  readonly catalogCosts: readonly CatalogCostChange[];
  readonly newCalls: readonly CallChange[];
  readonly vanishedCalls: readonly CallChange[];
  /**
   * How the comparison is not like with like, one line each: a baseline named by id that
   * is partial or of another selection, a partial run. Empty when both sides are complete
   * runs of one selection.
   */
  readonly baselineNotes: readonly string[];
  /**
   * What makes `jest-m3 diff` exit 1, one line each: regressed verdicts, failing tests, a
   * catalog whose context cost grew past the ratio, and a partial run (its missing shards'
   * tests were not compared, so "no regressions" cannot be said of it).
   */
  readonly regressions: readonly string[];
}

/** How `diffRuns` decides. */
export interface DiffOptions {
  /** Significance level (default 0.05). */
  readonly alpha?: number;
  /** Turn latency counts when its p95 moved by this ratio (default 1.5) ... */
  readonly latencyRatio?: number;
  /** ... and by this many milliseconds (default 100). */
  readonly latencyMinMs?: number;
  /** A judge score counts when its median moved by this much at least (default 0.1). */
  readonly scoreMinChange?: number;
  /**
   * A server's catalog context cost on an agent counts when it grew by this ratio or more
   * (or shrank by its inverse): default {@link DEFAULT_CATALOG_GROWTH}.
   */
  readonly catalogGrowth?: number;
}

/** The default catalog growth ratio: a catalog 10% dearer in an agent's context is listed. */
export const DEFAULT_CATALOG_GROWTH = 1.1;

interface TestRow {
  readonly id: string;
  readonly file: string;
  readonly name: string;
  readonly verdict: string;
}

const testsOf = (db: SqlDatabase, run: string): Map<string, TestRow> =>
  new Map(
    queryRows(db, "SELECT test_id, file, full_name, verdict FROM tests WHERE run_id = ?", [
      run,
    ]).map((row) => [
      String(row.test_id),
      {
        id: String(row.test_id),
        file: String(row.file),
        name: String(row.full_name),
        verdict: String(row.verdict),
      },
    ]),
  );

// Versions are left out of an agent's key: an agent upgraded between runs is still the agent
// the test ran on, and its change is what the diff is for.
const agentOf = (row: Record<string, SqlValue>): string =>
  `${String(row.harness)} · ${String(row.model)}`;

/** Pass counts per test and agent of `runs`, pooled. */
function passCounts(db: SqlDatabase, runs: readonly string[]): Map<string, PassCounts> {
  const counts = new Map<string, PassCounts>();
  for (const run of runs) {
    for (const row of queryRows(
      db,
      "SELECT test_id, harness, model, run, passed FROM trials WHERE run_id = ?",
      [run],
    )) {
      const key = `${String(row.test_id)}\u0000${agentOf(row)}`;
      const was = counts.get(key) ?? { passed: 0, trials: 0 };
      counts.set(key, {
        passed: was.passed + Number(row.passed),
        trials: was.trials + Number(row.run),
      });
    }
  }
  return counts;
}

/** Turn durations per test and agent of `runs`, pooled. */
function turnSamples(db: SqlDatabase, runs: readonly string[]): Map<string, number[]> {
  const samples = new Map<string, number[]>();
  for (const run of runs) {
    for (const row of queryRows(
      db,
      `SELECT s.test_id, s.harness, s.model, u.duration_ms FROM turns u
       JOIN sessions s ON s.run_id = u.run_id AND s.execution_id = u.execution_id
       WHERE u.run_id = ? AND u.duration_ms IS NOT NULL ORDER BY s.execution_id, u.number`,
      [run],
    )) {
      const key = `${String(row.test_id)}\u0000${agentOf(row)}`;
      const list = samples.get(key) ?? [];
      list.push(Number(row.duration_ms));
      samples.set(key, list);
    }
  }
  return samples;
}

/**
 * Judge scores per test, agent and criteria of `runs`, pooled (verdicts on a session the
 * test ran): criteria of one test are judged apart, as each scores its own question.
 */
function scoreSamples(db: SqlDatabase, runs: readonly string[]): Map<string, number[]> {
  const samples = new Map<string, number[]>();
  for (const run of runs) {
    for (const row of queryRows(
      db,
      `SELECT test_id, harness, model, criteria, score FROM verdicts
       WHERE run_id = ? AND score IS NOT NULL AND harness IS NOT NULL ORDER BY test_id, position`,
      [run],
    )) {
      const key = `${String(row.test_id)}\u0000${agentOf(row)}\u0000${String(row.criteria)}`;
      const list = samples.get(key) ?? [];
      list.push(Number(row.score));
      samples.set(key, list);
    }
  }
  return samples;
}

interface CatalogTool {
  readonly hash: string;
  readonly description: string | null;
}

function catalogOf(db: SqlDatabase, run: string): Map<string, Map<string, CatalogTool>> {
  const servers = new Map<string, Map<string, CatalogTool>>();
  for (const row of queryRows(
    db,
    "SELECT server, tool, schema_hash, description FROM catalogs WHERE run_id = ?",
    [run],
  )) {
    const server = String(row.server);
    const tools = servers.get(server) ?? new Map<string, CatalogTool>();
    tools.set(String(row.tool), {
      hash: String(row.schema_hash),
      description: row.description === null ? null : String(row.description),
    });
    servers.set(server, tools);
  }
  return servers;
}

interface CatalogCost {
  readonly server: string;
  readonly agent: string;
  readonly bytes: number;
  readonly estimatedTokens: number;
  readonly tools: number;
}

function catalogCostsOf(db: SqlDatabase, run: string): Map<string, CatalogCost> {
  return new Map(
    queryRows(
      db,
      "SELECT server, harness, model, tools, bytes, estimated_tokens FROM catalog_costs WHERE run_id = ?",
      [run],
    ).map((row) => [
      `${String(row.server)}\u0000${agentOf(row)}`,
      {
        server: String(row.server),
        agent: agentOf(row),
        bytes: Number(row.bytes),
        estimatedTokens: Number(row.estimated_tokens),
        tools: Number(row.tools),
      },
    ]),
  );
}

/**
 * Per server and agent on both sides, the catalog's context cost when it moved by `growth`
 * or more: grew (listed first) or shrank. Sorted by server, then agent.
 */
function catalogCostChanges(
  db: SqlDatabase,
  baseline: string,
  run: string,
  growth: number,
): CatalogCostChange[] {
  const before = catalogCostsOf(db, baseline);
  const changes: CatalogCostChange[] = [];
  for (const [key, now] of catalogCostsOf(db, run)) {
    const was = before.get(key);
    if (!was || was.bytes === 0) continue;
    const ratio = now.bytes / was.bytes;
    if (ratio < growth && ratio > 1 / growth) continue;
    changes.push({
      server: now.server,
      agent: now.agent,
      change: ratio >= growth ? "grew" : "shrank",
      baseline: { bytes: was.bytes, estimatedTokens: was.estimatedTokens, tools: was.tools },
      run: { bytes: now.bytes, estimatedTokens: now.estimatedTokens, tools: now.tools },
      ratio,
    });
  }
  return changes.sort(
    (a, b) =>
      Number(b.change === "grew") - Number(a.change === "grew") ||
      byCodePoint(a.server, b.server) ||
      byCodePoint(a.agent, b.agent),
  );
}

function callCounts(
  db: SqlDatabase,
  run: string,
): Map<string, { test: string; server: string; tool: string; count: number }> {
  const rows = queryRows(
    db,
    `SELECT t.full_name, c.server, c.tool, COUNT(*) AS n FROM calls c
     JOIN sessions s ON s.run_id = c.run_id AND s.execution_id = c.execution_id
     JOIN tests t ON t.run_id = s.run_id AND t.test_id = s.test_id
     WHERE c.run_id = ? GROUP BY t.full_name, c.server, c.tool`,
    [run],
  );
  return new Map(
    rows.map((row) => [
      `${String(row.full_name)}\u0000${String(row.server)}\u0000${String(row.tool)}`,
      {
        test: String(row.full_name),
        server: String(row.server),
        tool: String(row.tool),
        count: Number(row.n),
      },
    ]),
  );
}

function catalogChanges(db: SqlDatabase, baseline: string, run: string): CatalogChange[] {
  const oldCatalog = catalogOf(db, baseline);
  const newCatalog = catalogOf(db, run);
  const catalogs: CatalogChange[] = [];
  for (const server of [...new Set([...oldCatalog.keys(), ...newCatalog.keys()])].sort(
    byCodePoint,
  )) {
    const was = oldCatalog.get(server);
    const now = newCatalog.get(server);
    // A server one run never listed (its tests did not run) is not a catalog change.
    if (!was || !now) continue;
    const both = [...now.keys()].filter((tool) => was.has(tool)).sort(byCodePoint);
    const change: CatalogChange = {
      server,
      added: [...now.keys()].filter((tool) => !was.has(tool)).sort(byCodePoint),
      removed: [...was.keys()].filter((tool) => !now.has(tool)).sort(byCodePoint),
      schemaChanged: both.filter((tool) => was.get(tool)!.hash !== now.get(tool)!.hash),
      descriptionChanged: both.filter(
        (tool) => was.get(tool)!.description !== now.get(tool)!.description,
      ),
    };
    if (
      change.added.length +
        change.removed.length +
        change.schemaChanged.length +
        change.descriptionChanged.length >
      0
    ) {
      catalogs.push(change);
    }
  }
  return catalogs;
}

function callChanges(
  db: SqlDatabase,
  baseline: string,
  run: string,
  namesBefore: ReadonlySet<string>,
  namesAfter: ReadonlySet<string>,
): { appeared: CallChange[]; vanished: CallChange[] } {
  const oldCalls = callCounts(db, baseline);
  const newCalls = callCounts(db, run);
  // Calls are compared for tests that ran in both runs: a new test's calls are not "new".
  const appeared: CallChange[] = [];
  const vanished: CallChange[] = [];
  for (const [key, now] of newCalls) {
    if (!oldCalls.has(key) && namesBefore.has(now.test)) {
      appeared.push({ test: now.test, server: now.server, tool: now.tool, from: 0, to: now.count });
    }
  }
  for (const [key, was] of oldCalls) {
    if (!newCalls.has(key) && namesAfter.has(was.test)) {
      vanished.push({ test: was.test, server: was.server, tool: was.tool, from: was.count, to: 0 });
    }
  }
  const order = (a: CallChange, b: CallChange): number =>
    byCodePoint(a.test, b.test) || byCodePoint(a.server, b.server) || byCodePoint(a.tool, b.tool);
  return { appeared: appeared.sort(order), vanished: vanished.sort(order) };
}

/**
 * The difference between `baselineRuns` (one run, or several pooled) and `run`: verdicts on
 * pass counts per test and agent (Fisher's exact test, Holm-corrected), turn latency
 * (Mann-Whitney U, Holm-corrected), failing tests, flips, catalogs and calls (against the
 * latest baseline run).
 */
export function diffRuns(
  db: SqlDatabase,
  baselineRuns: HistoryRun | readonly HistoryRun[],
  run: HistoryRun,
  options: DiffOptions = {},
  baselineSpec = "previous",
): RunDiff {
  const pool = Array.isArray(baselineRuns)
    ? (baselineRuns as readonly HistoryRun[])
    : [baselineRuns as HistoryRun];
  const baseline = pool.at(-1)!;
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const after = testsOf(db, run.id);
  const sides = pool.map((earlier) => testsOf(db, earlier.id));
  const latest = sides.at(-1)!;
  // A test's verdicts over the pooled runs: it "flips" when they and the run's disagree.
  const verdictsOf = (id: string): Set<string> =>
    new Set(sides.flatMap((side) => (side.get(id) ? [side.get(id)!.verdict] : [])));
  const known = new Map<string, TestRow>();
  for (const side of sides) for (const [id, test] of side) known.set(id, test);

  const flipped: FlippedTest[] = [];
  const added: string[] = [];
  for (const [id, test] of after) {
    if (!known.has(id)) added.push(test.name);
    const old = latest.get(id);
    if (old && old.verdict !== test.verdict) {
      flipped.push({ test: test.name, file: test.file, from: old.verdict, to: test.verdict });
    }
  }
  const byTest = (a: { file: string; name: string }, b: { file: string; name: string }): number =>
    byCodePoint(a.file, b.file) || byCodePoint(a.name, b.name);
  added.sort(byCodePoint);
  const removed = [...known.values()]
    .filter((test) => !after.has(test.id))
    .sort(byTest)
    .map((t) => t.name);
  // Tests that now fail first: those are what a reader looks for; then by file and name.
  flipped.sort(
    (a, b) =>
      Number(b.to === "failed") - Number(a.to === "failed") ||
      byCodePoint(a.file, b.file) ||
      byCodePoint(a.test, b.test),
  );
  const failing = [...after.values()]
    .filter((test) => test.verdict === "failed")
    .sort(byTest)
    .map((test) => ({
      test: test.name,
      file: test.file,
      from: latest.get(test.id)?.verdict ?? "new",
      to: test.verdict,
    }));

  const poolIds = pool.map((earlier) => earlier.id);
  const before = passCounts(db, poolIds);
  const comparisons: PassComparison[] = [];
  for (const [key, counts] of passCounts(db, [run.id])) {
    const old = before.get(key);
    const [id = "", agent = ""] = key.split("\u0000");
    const test = after.get(id);
    if (!old || !test) continue;
    const seen = verdictsOf(id);
    seen.add(test.verdict);
    comparisons.push({
      test: test.name,
      file: test.file,
      agent,
      baseline: old,
      run: counts,
      flipped: seen.has("passed") && seen.has("failed"),
    });
  }
  const rowOrder = (
    a: { test: string; agent: string; metric?: string },
    b: { test: string; agent: string; metric?: string },
  ): number =>
    byCodePoint(a.test, b.test) ||
    byCodePoint(a.agent, b.agent) ||
    byCodePoint(a.metric ?? "", b.metric ?? "");
  comparisons.sort(rowOrder);
  const verdicts = passVerdicts(comparisons, alpha);

  const oldTurns = turnSamples(db, poolIds);
  const latencyRows: MetricSamples[] = [];
  for (const [key, samples] of turnSamples(db, [run.id])) {
    const old = oldTurns.get(key);
    const [id = "", agent = ""] = key.split("\u0000");
    const test = after.get(id);
    if (!old || !test) continue;
    latencyRows.push({ metric: LATENCY, test: test.name, agent, baseline: old, run: samples });
  }
  latencyRows.sort(rowOrder);
  const metrics = metricVerdicts(
    latencyRows,
    {
      higherIsBetter: false,
      ratio: options.latencyRatio ?? 1.5,
      minChange: options.latencyMinMs ?? 100,
    },
    alpha,
  );

  const oldScores = scoreSamples(db, poolIds);
  const scoreRows: MetricSamples[] = [];
  for (const [key, samples] of scoreSamples(db, [run.id])) {
    const old = oldScores.get(key);
    const [id = "", agent = "", criteria = ""] = key.split("\u0000");
    const test = after.get(id);
    if (!old || !test) continue;
    const shown = criteria.length > 80 ? `${criteria.slice(0, 79)}…` : criteria;
    scoreRows.push({
      metric: `${JUDGE_SCORE} "${shown}"`,
      test: test.name,
      agent,
      baseline: old,
      run: samples,
    });
  }
  scoreRows.sort(rowOrder);
  const scores = metricVerdicts(
    scoreRows,
    { higherIsBetter: true, statistic: "p50", ratio: 1, minChange: options.scoreMinChange ?? 0.1 },
    alpha,
  );

  const namesBefore = new Set([...latest.values()].map((test) => test.name));
  const namesAfter = new Set([...after.values()].map((test) => test.name));
  const calls = callChanges(db, baseline.id, run.id, namesBefore, namesAfter);
  const growth = options.catalogGrowth ?? DEFAULT_CATALOG_GROWTH;
  const catalogCosts = catalogCostChanges(db, baseline.id, run.id, growth);

  const baselineNotes = [
    ...pool
      .filter((earlier) => earlier.partial)
      .map(
        (earlier) =>
          `the baseline ${earlier.id} is a partial run (${missingShardsOf(earlier)}): tests of its missing shards show as new`,
      ),
    ...pool
      .filter((earlier) => (earlier.selection ?? "") !== (run.selection ?? ""))
      .map(
        (earlier) =>
          `the baseline ${earlier.id} ran another selection (${selectionOfRun(earlier)}) than ${run.id} (${selectionOfRun(run)}): tests only one side selected show as new or no longer run`,
      ),
    ...(run.partial
      ? [
          `${run.id} is a partial run (${missingShardsOf(run)}): the tests of its missing shards were not compared`,
        ]
      : []),
  ];

  const regressions = [
    ...verdicts
      .filter((row) => row.verdict === "regressed")
      .map(
        (row) =>
          `regressed: ${row.test} (${row.agent}) ${row.baseline.passed}/${row.baseline.trials} → ${row.run.passed}/${row.run.trials}, adjusted p ${formatP(row.adjustedPValue)}`,
      ),
    ...metrics
      .filter((row) => row.verdict === "regressed")
      .map(
        (row) =>
          `regressed ${row.metric}: ${row.test} (${row.agent}) p95 ×${row.ratio.toFixed(2)}, adjusted p ${formatP(row.adjustedPValue)}`,
      ),
    ...scores
      .filter((row) => row.verdict === "regressed")
      .map(
        (row) =>
          `regressed ${row.metric}: ${row.test} (${row.agent}) median ${row.baseline.p50} → ${row.run.p50}, adjusted p ${formatP(row.adjustedPValue)}`,
      ),
    ...failing.map((test) => `fails its requirement: ${test.test}`),
    ...catalogCosts
      .filter((row) => row.change === "grew")
      .map(
        (row) =>
          `catalog dearer: ${row.server} on ${row.agent} ${row.baseline.bytes} → ${row.run.bytes} bytes (×${row.ratio.toFixed(2)}, the limit is ×${growth.toFixed(2)})`,
      ),
    ...(run.partial
      ? [`partial run: ${run.id} has ${missingShardsOf(run)}; their tests were not compared`]
      : []),
  ];
  return {
    baselineSpec,
    baseline,
    baselineRuns: pool,
    run,
    statistics: {
      alpha,
      passMethod: PASS_METHOD,
      passComparisons: comparisons.length,
      metricMethod: "Mann-Whitney U (two-sided), Holm-corrected",
      metricComparisons: latencyRows.length,
      scoreMethod: SCORE_METHOD,
      scoreMinChange: options.scoreMinChange ?? 0.1,
      scoreComparisons: scoreRows.length,
      catalogGrowth: growth,
    },
    verdicts,
    metrics,
    scores,
    failing,
    flipped,
    added,
    removed,
    catalogs: catalogChanges(db, baseline.id, run.id),
    catalogCosts,
    newCalls: calls.appeared,
    vanishedCalls: calls.vanished,
    baselineNotes,
    regressions,
  };
}

/** The metric name of judge scores. */
export const JUDGE_SCORE = "judge score";

/** How judge scores are compared, as `jest-m3 diff` names it. */
export const SCORE_METHOD =
  "Mann-Whitney U (two-sided) on the judge scores, Holm-corrected; the median (p50) compared, higher is better";

/** The metric name of turn latency. */
export const LATENCY = "turn latency";

/** A p-value as a comparison: `= 0.0033` (two significant digits), `< 0.0001` below that. */
export function formatP(p: number): string {
  if (p < 0.0001) return "< 0.0001";
  return `= ${p >= 0.1 ? p.toFixed(2) : p.toPrecision(2)}`;
}
