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
}

/** A run asked for is not in the history. */
export class RunNotInHistory extends M3Error {
  override readonly code = "M3_RUN_NOT_IN_HISTORY";
}

/** Every run of the history, oldest first. */
export function historyRuns(db: SqlDatabase): HistoryRun[] {
  return queryRows(db, "SELECT id, seq, finished_at, success FROM runs ORDER BY seq").map(
    (row) => ({
      id: String(row.id),
      seq: Number(row.seq),
      finishedAt: String(row.finished_at),
      success: row.success === 1,
    }),
  );
}

const listed = (runs: readonly HistoryRun[]): string =>
  runs.length === 0
    ? "none"
    : runs
        .slice(-8)
        .map((run) => `${run.id} (${run.success ? "green" : "red"})`)
        .join(", ");

/**
 * The run `spec` names: a run id or its unique prefix, `last` (the latest), `previous` (the
 * one before `before`), or `last-green` (the latest successful run before `before`).
 *
 * @throws RunNotInHistory saying which runs there are.
 */
export function resolveRun(
  runs: readonly HistoryRun[],
  spec: string,
  before?: HistoryRun,
): HistoryRun {
  const earlier = before ? runs.filter((run) => run.seq < before.seq) : runs;
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
    const what =
      spec === "last-green"
        ? `No green run${before ? ` before ${before.id}` : ""}`
        : spec === "previous"
          ? `No run before ${before?.id ?? "the latest"}`
          : spec === "last"
            ? "No run"
            : `No run "${spec}"`;
    throw new RunNotInHistory(`${what} in the history. Runs: ${listed(runs)}.`);
  }
  return found;
}

/**
 * The runs a baseline spec names, oldest first: one run for a run id, `previous` or
 * `last-green` (see {@link resolveRun}); for `pool:K`, the K runs before `run` (fewer when
 * the history has fewer), whose pass counts are pooled.
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
  const earlier = runs.filter((other) => other.seq < run.seq).slice(-size);
  if (earlier.length === 0) {
    throw new RunNotInHistory(
      `No run before ${run.id} in the history to pool. Runs: ${listed(runs)}.`,
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
  readonly newCalls: readonly CallChange[];
  readonly vanishedCalls: readonly CallChange[];
  /** What makes `jest-m3 diff` exit 1, one line each: regressed verdicts and failing tests. */
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
}

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

function catalogOf(db: SqlDatabase, run: string): Map<string, Map<string, string>> {
  const servers = new Map<string, Map<string, string>>();
  for (const row of queryRows(
    db,
    "SELECT server, tool, schema_hash FROM catalogs WHERE run_id = ?",
    [run],
  )) {
    const server = String(row.server);
    const tools = servers.get(server) ?? new Map<string, string>();
    tools.set(String(row.tool), String(row.schema_hash));
    servers.set(server, tools);
  }
  return servers;
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
  for (const server of [...new Set([...oldCatalog.keys(), ...newCatalog.keys()])].sort()) {
    const was = oldCatalog.get(server);
    const now = newCatalog.get(server);
    // A server one run never listed (its tests did not run) is not a catalog change.
    if (!was || !now) continue;
    const change: CatalogChange = {
      server,
      added: [...now.keys()].filter((tool) => !was.has(tool)).sort(),
      removed: [...was.keys()].filter((tool) => !now.has(tool)).sort(),
      schemaChanged: [...now.keys()]
        .filter((tool) => was.has(tool) && was.get(tool) !== now.get(tool))
        .sort(),
    };
    if (change.added.length + change.removed.length + change.schemaChanged.length > 0) {
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
  return { appeared, vanished };
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
  const removed = [...known.values()].filter((test) => !after.has(test.id)).map((t) => t.name);
  // Tests that now fail first: those are what a reader looks for.
  flipped.sort((a, b) => Number(b.to === "failed") - Number(a.to === "failed"));
  const failing = [...after.values()]
    .filter((test) => test.verdict === "failed")
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
  const scores = metricVerdicts(
    scoreRows,
    { higherIsBetter: true, statistic: "p50", ratio: 1, minChange: options.scoreMinChange ?? 0.1 },
    alpha,
  );

  const namesBefore = new Set([...latest.values()].map((test) => test.name));
  const namesAfter = new Set([...after.values()].map((test) => test.name));
  const calls = callChanges(db, baseline.id, run.id, namesBefore, namesAfter);

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
    },
    verdicts,
    metrics,
    scores,
    failing,
    flipped,
    added,
    removed,
    catalogs: catalogChanges(db, baseline.id, run.id),
    newCalls: calls.appeared,
    vanishedCalls: calls.vanished,
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
