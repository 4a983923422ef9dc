/**
 * The run's statistics per test and agent: trials run and passed, the pass rate with its
 * Wilson interval, turn latency (p50, p95) and tool-call counts (total and per session).
 * One engine for report.json, the reporter's end-of-run table and the HTML report.
 */
import type { TranscriptRecord } from "../shared/transcript.js";
import type { VerdictRecord } from "./verdicts.js";
import { wilsonInterval } from "../stats/wilson.js";

/** An agent as the statistics group by it. */
export interface StatsAgent {
  readonly harness: string;
  readonly model: string;
  readonly version: string | null;
}

/** The statistics of one test on one agent. */
export interface AgentStats {
  readonly agent: StatsAgent;
  /** Trials run and passed: from `trials()` when the test ran trials, else the test itself (1). */
  readonly trials: {
    readonly run: number;
    readonly passed: number;
    /** passed / run. */
    readonly rate: number;
    /** The Wilson 95% interval of the pass rate. */
    readonly interval: readonly [number, number];
  };
  readonly sessions: number;
  readonly turns: number;
  /** Turn latency in milliseconds (nearest-rank percentiles); null without a finished turn. */
  readonly turnLatencyMs: { readonly p50: number; readonly p95: number } | null;
  /** Tool calls observed: in all, and per session. */
  readonly toolCalls: {
    readonly total: number;
    readonly perSession: {
      readonly mean: number;
      readonly p50: number;
      readonly p95: number;
      readonly max: number;
    };
  };
  /**
   * The judge's scores of this test's verdicts on this agent's sessions (`toPassJudge`,
   * `.not` ones and judge failures left out): their mean and how many. Null without one.
   */
  readonly judgeScores: { readonly mean: number; readonly n: number } | null;
  /**
   * Tokens per session (input + output, as the provider tap counted them), nearest-rank
   * p50/p95 over the sessions that counted any; null when none did.
   */
  readonly tokens: { readonly p50: number; readonly p95: number; readonly sessions: number } | null;
  /**
   * Cost per session from the run's price table, p50/p95; `unavailable` (with the reason)
   * when a session's cost is, never 0; null without sessions.
   */
  readonly cost:
    { readonly p50: number; readonly p95: number } | { readonly unavailable: string } | null;
}

/** p50 and p95 (nearest rank) of `values`, or null for none. */
function spread(values: readonly number[]): { p50: number; p95: number } | null {
  if (values.length === 0) return null;
  return { p50: percentile(values, 50)!, p95: percentile(values, 95)! };
}

/** The cost statistics of an agent's sessions (see {@link AgentStats.cost}). */
function costOf(sessions: readonly TranscriptRecord[]): AgentStats["cost"] {
  if (sessions.length === 0) return null;
  const missing = sessions.find((session) => typeof session.cost !== "number");
  if (missing) {
    return { unavailable: missing.costNote ?? "the session's cost was not recorded" };
  }
  return spread(sessions.map((session) => session.cost as number));
}

/** A trials ledger record (see `trials()`), the fields the statistics read. */
export interface TrialsLedgerRecord {
  readonly testPath: string;
  readonly testName: string;
  readonly agent?: StatsAgent | null;
  readonly trials: number;
  readonly passed: number;
}

/**
 * The nearest-rank percentile of `values` (`p` from 0 to 100): a value that occurred, never
 * an interpolation. Null for no values.
 *
 * @example
 * ```ts
 * percentile([120, 80, 400, 95], 50); // 95
 * ```
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

const agentKey = (agent: StatsAgent): string =>
  JSON.stringify([agent.harness, agent.model, agent.version]);

/** The agent a session ran on. */
export function sessionAgent(session: TranscriptRecord): StatsAgent {
  return {
    harness: session.harness ?? session.agent,
    model: session.model,
    version: session.version ?? null,
  };
}

/** Same harness and model, and the same version where both know it. */
export const sameAgent = (a: StatsAgent, b: StatsAgent): boolean =>
  a.harness === b.harness &&
  a.model === b.model &&
  (a.version === null || b.version === null || a.version === b.version);

/**
 * The statistics of one test, one row per agent its sessions (or its trials) ran on.
 * `passedTest` says whether the test passed, for a test that ran no `trials()`; `verdicts`
 * are the test's judge verdicts, each counted on the agent of the session it judged.
 */
export function testStats(
  sessions: readonly TranscriptRecord[],
  trials: readonly TrialsLedgerRecord[],
  passedTest: boolean,
  verdicts: readonly VerdictRecord[] = [],
): AgentStats[] {
  const agents = new Map<string, StatsAgent>();
  for (const session of sessions)
    agents.set(agentKey(sessionAgent(session)), sessionAgent(session));
  // A trials record's agent may lack the version a session knows (the probe did not run).
  for (const record of trials) {
    const agent = record.agent;
    if (agent && ![...agents.values()].some((known) => sameAgent(agent, known))) {
      agents.set(agentKey(agent), agent);
    }
  }
  const rows: AgentStats[] = [];
  for (const agent of agents.values()) {
    const mine = sessions.filter((session) => sameAgent(sessionAgent(session), agent));
    // A trials record names its agent when it ran over agents(); one that names none
    // belongs to the test's only agent.
    const ledger = trials.filter((record) =>
      record.agent ? sameAgent(record.agent, agent) : agents.size === 1,
    );
    const run = ledger.length > 0 ? ledger.reduce((sum, record) => sum + record.trials, 0) : 1;
    const passed =
      ledger.length > 0
        ? ledger.reduce((sum, record) => sum + record.passed, 0)
        : passedTest
          ? 1
          : 0;
    const latencies = mine.flatMap((session) =>
      session.turns
        .map((turn) => turn.durationMs)
        .filter((value): value is number => typeof value === "number"),
    );
    const perSession = mine.map((session) =>
      session.turns.reduce((sum, turn) => sum + turn.toolCalls.length, 0),
    );
    const total = perSession.reduce((sum, count) => sum + count, 0);
    const ids = new Set(mine.map((session) => session.executionId));
    const scores = verdicts
      .filter(
        (verdict) =>
          verdict.isNot !== true &&
          typeof verdict.score === "number" &&
          // A verdict on a session the run did not record belongs to the only agent.
          (ids.has(verdict.subject?.executionId ?? "") ||
            (agents.size === 1 &&
              !sessions.some((session) => session.executionId === verdict.subject?.executionId))),
      )
      .map((verdict) => verdict.score as number);
    const tokens = mine
      .map((session) => session.usage?.totalTokens)
      .filter((value): value is number => typeof value === "number");
    const tokenSpread = spread(tokens);
    rows.push({
      agent,
      tokens: tokenSpread ? { ...tokenSpread, sessions: tokens.length } : null,
      cost: costOf(mine),
      trials: {
        run,
        passed,
        rate: run === 0 ? 0 : passed / run,
        interval: wilsonInterval(passed, run),
      },
      sessions: mine.length,
      turns: mine.reduce((sum, session) => sum + session.turns.length, 0),
      turnLatencyMs:
        latencies.length === 0
          ? null
          : { p50: percentile(latencies, 50)!, p95: percentile(latencies, 95)! },
      toolCalls: {
        total,
        perSession: {
          mean: perSession.length === 0 ? 0 : total / perSession.length,
          p50: percentile(perSession, 50) ?? 0,
          p95: percentile(perSession, 95) ?? 0,
          max: perSession.length === 0 ? 0 : Math.max(...perSession),
        },
      },
      judgeScores:
        scores.length === 0
          ? null
          : {
              mean:
                Math.round((scores.reduce((sum, x) => sum + x, 0) / scores.length) * 1000) / 1000,
              n: scores.length,
            },
    });
  }
  return rows.sort((a, b) => agentKey(a.agent).localeCompare(agentKey(b.agent)));
}

const percent = (value: number): string => `${Math.round(value * 100)}%`;
const millis = (value: number): string =>
  value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`;

/** One line of the end-of-run table: a test on an agent. */
export interface StatsLine {
  readonly test: string;
  readonly stats: AgentStats;
}

/**
 * The end-of-run table, as text: one row per test and agent with trials, pass rate and
 * interval, turn latency p50/p95, tool calls (total, per session p50/max), and, when any
 * test asked a judge, the mean judge score and how many verdicts it is the mean of.
 */
export function formatStatsTable(lines: readonly StatsLine[]): string {
  const judged = lines.some(({ stats }) => stats.judgeScores);
  const header = [
    "passed",
    "rate (95% CI)",
    "turn p50/p95",
    "calls (per session p50/max)",
    ...(judged ? ["judge mean (n)"] : []),
    "agent",
    "test",
  ];
  const rows = lines.map(({ test, stats }) => [
    `${stats.trials.passed}/${stats.trials.run}`,
    `${percent(stats.trials.rate)} (${percent(stats.trials.interval[0])}–${percent(stats.trials.interval[1])})`,
    stats.turnLatencyMs
      ? `${millis(stats.turnLatencyMs.p50)} / ${millis(stats.turnLatencyMs.p95)}`
      : "-",
    `${stats.toolCalls.total} (${stats.toolCalls.perSession.p50}/${stats.toolCalls.perSession.max})`,
    ...(judged
      ? [stats.judgeScores ? `${stats.judgeScores.mean} (${stats.judgeScores.n})` : "-"]
      : []),
    `${stats.agent.harness}${stats.agent.version ? ` ${stats.agent.version}` : ""} · ${stats.agent.model}`,
    test,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const render = (row: readonly string[]): string =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [render(header), ...rows.map(render)].map((line) => `  ${line}`).join("\n");
}
