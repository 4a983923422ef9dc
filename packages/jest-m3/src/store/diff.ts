/**
 * What changed between two recorded runs: tests that flipped, pass-rate deltas per test and
 * agent, tool-catalog changes per server, calls that appeared or vanished, and turn-latency
 * changes. Computed from the history alone, so any two runs compare, whenever they ran.
 */
import { M3Error } from "@jest-m3/core";
import { queryRows, type SqlDatabase, type SqlValue } from "./engine.js";

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

/** A test on an agent, as the diff keys it. */
interface AgentRow {
  readonly testId: string;
  readonly test: string;
  readonly agent: string;
  readonly run: number;
  readonly passed: number;
  readonly rate: number;
  readonly p50: number | null;
  readonly p95: number | null;
}

/** A test whose verdict changed. */
export interface FlippedTest {
  readonly test: string;
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

/** A pass rate that changed for a test on an agent. */
export interface RateChange {
  readonly test: string;
  readonly agent: string;
  readonly from: { readonly passed: number; readonly run: number; readonly rate: number };
  readonly to: { readonly passed: number; readonly run: number; readonly rate: number };
  /** to.rate - from.rate. */
  readonly delta: number;
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

/** A turn-latency change of a test on an agent past the threshold. */
export interface LatencyChange {
  readonly test: string;
  readonly agent: string;
  readonly from: { readonly p50: number; readonly p95: number };
  readonly to: { readonly p50: number; readonly p95: number };
  /** to.p95 / from.p95. */
  readonly ratio: number;
}

/** What changed from `baseline` to `run`. */
export interface RunDiff {
  readonly baseline: HistoryRun;
  readonly run: HistoryRun;
  readonly flipped: readonly FlippedTest[];
  /** Tests only in one of the runs. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly rates: readonly RateChange[];
  readonly catalogs: readonly CatalogChange[];
  readonly newCalls: readonly CallChange[];
  readonly vanishedCalls: readonly CallChange[];
  readonly latency: readonly LatencyChange[];
  /** The regressions, one line each: what makes `jest-m3 diff` exit 1. */
  readonly regressions: readonly string[];
}

/** When a latency change is reported: p95 grew or shrank by `ratio`, and by `minMs` at least. */
export interface LatencyThreshold {
  readonly ratio: number;
  readonly minMs: number;
}

const testsOf = (db: SqlDatabase, run: string): Map<string, Record<string, SqlValue>> =>
  new Map(
    queryRows(db, "SELECT test_id, file, full_name, verdict FROM tests WHERE run_id = ?", [
      run,
    ]).map((row) => [String(row.test_id), row]),
  );

function agentRows(db: SqlDatabase, run: string): Map<string, AgentRow> {
  const rows = queryRows(
    db,
    `SELECT t.test_id, s.full_name, t.harness, t.model, t.version, t.run, t.passed, t.rate, t.turn_p50_ms, t.turn_p95_ms
     FROM trials t JOIN tests s ON s.run_id = t.run_id AND s.test_id = t.test_id WHERE t.run_id = ?`,
    [run],
  );
  // Versions are left out of the key: an agent upgraded between runs is still the agent
  // the test ran on, and its rate change is what the diff is for.
  return new Map(
    rows.map((row) => {
      const agent = `${String(row.harness)} · ${String(row.model)}`;
      return [
        `${String(row.test_id)}\u0000${agent}`,
        {
          testId: String(row.test_id),
          test: String(row.full_name),
          agent,
          run: Number(row.run),
          passed: Number(row.passed),
          rate: Number(row.rate),
          p50: row.turn_p50_ms === null ? null : Number(row.turn_p50_ms),
          p95: row.turn_p95_ms === null ? null : Number(row.turn_p95_ms),
        },
      ];
    }),
  );
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

const percent = (value: number): string => `${Math.round(value * 100)}%`;

/** The difference between two runs of the history. */
export function diffRuns(
  db: SqlDatabase,
  baseline: HistoryRun,
  run: HistoryRun,
  threshold: LatencyThreshold = { ratio: 1.5, minMs: 100 },
): RunDiff {
  const before = testsOf(db, baseline.id);
  const after = testsOf(db, run.id);
  const flipped: FlippedTest[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  for (const [id, test] of after) {
    const old = before.get(id);
    if (!old) added.push(String(test.full_name));
    else if (old.verdict !== test.verdict) {
      flipped.push({
        test: String(test.full_name),
        file: String(test.file),
        from: String(old.verdict),
        to: String(test.verdict),
      });
    }
  }
  for (const [id, test] of before) if (!after.has(id)) removed.push(String(test.full_name));
  // Tests that now fail first: those are what a reader looks for.
  flipped.sort((a, b) => Number(b.to === "failed") - Number(a.to === "failed"));

  const oldAgents = agentRows(db, baseline.id);
  const rates: RateChange[] = [];
  const latency: LatencyChange[] = [];
  for (const [key, now] of agentRows(db, run.id)) {
    const old = oldAgents.get(key);
    if (!old) continue;
    // A test run once on both sides changed rate only by flipping: listed there, not twice.
    const single = old.run === 1 && now.run === 1;
    if (!single && (old.rate !== now.rate || old.run !== now.run)) {
      rates.push({
        test: now.test,
        agent: now.agent,
        from: { passed: old.passed, run: old.run, rate: old.rate },
        to: { passed: now.passed, run: now.run, rate: now.rate },
        delta: now.rate - old.rate,
      });
    }
    if (old.p95 !== null && now.p95 !== null && old.p50 !== null && now.p50 !== null) {
      const ratio = old.p95 === 0 ? (now.p95 === 0 ? 1 : Infinity) : now.p95 / old.p95;
      const moved = Math.abs(now.p95 - old.p95) >= threshold.minMs;
      if (moved && (ratio >= threshold.ratio || ratio <= 1 / threshold.ratio)) {
        latency.push({
          test: now.test,
          agent: now.agent,
          from: { p50: old.p50, p95: old.p95 },
          to: { p50: now.p50, p95: now.p95 },
          ratio,
        });
      }
    }
  }

  const oldCatalog = catalogOf(db, baseline.id);
  const newCatalog = catalogOf(db, run.id);
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

  const oldCalls = callCounts(db, baseline.id);
  const newCalls = callCounts(db, run.id);
  // Calls are compared for tests that ran in both runs: a new test's calls are not "new".
  const namesBefore = new Set([...before.values()].map((test) => String(test.full_name)));
  const namesAfter = new Set([...after.values()].map((test) => String(test.full_name)));
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

  const regressions = [
    ...flipped
      .filter((test) => test.from === "passed" && test.to === "failed")
      .map((test) => `test failed that passed: ${test.test}`),
    ...rates
      .filter((rate) => rate.delta < 0)
      .map(
        (rate) =>
          `pass rate fell ${percent(rate.from.rate)} → ${percent(rate.to.rate)}: ${rate.test} (${rate.agent})`,
      ),
    ...catalogs.flatMap((change) => [
      ...change.removed.map((tool) => `tool removed from server ${change.server}: ${tool}`),
      ...change.schemaChanged.map(
        (tool) => `tool schema changed on server ${change.server}: ${tool}`,
      ),
    ]),
  ];
  return {
    baseline,
    run,
    flipped,
    added,
    removed,
    rates,
    catalogs,
    newCalls: appeared,
    vanishedCalls: vanished,
    latency,
    regressions,
  };
}

const millis = (value: number): string =>
  value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;

/** The diff as text, section by section; sections with nothing in them are left out. */
export function formatDiff(diff: RunDiff): string {
  const lines = [
    `jest-m3 diff: ${diff.baseline.id} (${diff.baseline.success ? "green" : "red"}) → ${diff.run.id} (${diff.run.success ? "green" : "red"})`,
  ];
  const section = (title: string, items: readonly string[]): void => {
    if (items.length === 0) return;
    lines.push("", `${title} (${items.length})`, ...items.map((item) => `  ${item}`));
  };
  section(
    "Tests that flipped",
    diff.flipped.map((test) => `${test.from} → ${test.to}  ${test.test}  (${test.file})`),
  );
  section("New tests", diff.added);
  section("Tests no longer run", diff.removed);
  section(
    "Pass rates",
    diff.rates.map(
      (rate) =>
        `${rate.from.passed}/${rate.from.run} ${percent(rate.from.rate)} → ${rate.to.passed}/${rate.to.run} ${percent(rate.to.rate)} (${rate.delta >= 0 ? "+" : ""}${Math.round(rate.delta * 100)} points)  ${rate.test} · ${rate.agent}`,
    ),
  );
  section(
    "Tool catalogs",
    diff.catalogs.flatMap((change) => [
      ...change.added.map((tool) => `${change.server}: + ${tool} (added)`),
      ...change.removed.map((tool) => `${change.server}: - ${tool} (removed)`),
      ...change.schemaChanged.map((tool) => `${change.server}: ~ ${tool} (schema changed)`),
    ]),
  );
  section(
    "New calls",
    diff.newCalls.map((call) => `${call.server}:${call.tool} ×${call.to}  ${call.test}`),
  );
  section(
    "Vanished calls",
    diff.vanishedCalls.map(
      (call) => `${call.server}:${call.tool} (was ×${call.from})  ${call.test}`,
    ),
  );
  section(
    "Turn latency",
    diff.latency.map(
      (change) =>
        `p50 ${millis(change.from.p50)} → ${millis(change.to.p50)}, p95 ${millis(change.from.p95)} → ${millis(change.to.p95)} (×${change.ratio.toFixed(2)})  ${change.test} · ${change.agent}`,
    ),
  );
  if (lines.length === 1) lines.push("", "No changes.");
  lines.push(
    "",
    diff.regressions.length === 0
      ? "No regressions."
      : `${diff.regressions.length} regression(s):\n${diff.regressions.map((line) => `  ${line}`).join("\n")}`,
  );
  return lines.join("\n");
}
