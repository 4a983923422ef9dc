/**
 * The run as a test × agent grid: one row per test (grouped by file and describe block), one
 * column per agent (harness, version, model), each cell the test's pass count on that agent
 * with its Wilson 95% interval; and one row per server × tool with, per agent, the calls it
 * made and how many succeeded. The CI job summary renders it as Markdown; the HTML report
 * builds the same grid in the page (report/client.ts) from the same report data.
 */
import type { ReportTest, RunReport, Verdict } from "./model.js";
import { sessionAgent, type StatsAgent } from "./stats.js";

/** An agent's column label: `harness version · model`, as the end-of-run table names it. */
export function agentLabel(agent: StatsAgent): string {
  return `${agent.harness}${agent.version ? ` ${agent.version}` : ""} · ${agent.model}`;
}

/** What a cell's colour says. */
export type CellOutcome = "passed" | "failed" | "partial";

/** One test on one agent. */
export interface GridCell {
  readonly passed: number;
  readonly run: number;
  readonly rate: number;
  /** The Wilson 95% interval of the pass rate. */
  readonly interval: readonly [number, number];
  readonly outcome: CellOutcome;
}

/** One test's row (the same test of every agent's `describeAgents` block, merged). */
export interface GridRow {
  /** The row's first test. */
  readonly test: ReportTest;
  /** The describe blocks of the test: its full name less its title. */
  readonly describe: string;
  /** The worst verdict of the row's tests. */
  readonly verdict: Verdict;
  /** Per column (same order as {@link TestGrid.agents}); null where it did not run there. */
  readonly cells: ReadonlyArray<GridCell | null>;
}

/** One server × tool row: per agent, calls made and calls that succeeded. */
export interface ToolRow {
  readonly server: string;
  readonly tool: string;
  /** Listed by the server's `tools/list` in a session of the run. */
  readonly listed: boolean;
  readonly cells: ReadonlyArray<{ readonly calls: number; readonly succeeded: number }>;
}

/** The whole grid. */
export interface TestGrid {
  readonly agents: readonly string[];
  readonly rows: readonly GridRow[];
  readonly tools: readonly ToolRow[];
}

const outcomeOf = (passed: number, run: number): CellOutcome =>
  passed === run ? "passed" : passed === 0 ? "failed" : "partial";

/**
 * The describe blocks of `test` (its full name without its own title at the end), less the
 * ` [<agent>]` that `describeAgents` puts after its name: the same test on every agent is one
 * row of the grid.
 */
export function describeOf(test: ReportTest): string {
  const blocks = test.fullName.endsWith(test.title)
    ? test.fullName.slice(0, test.fullName.length - test.title.length).trim()
    : "";
  const harnesses = [
    ...(test.stats ?? []).map((row) => row.agent.harness),
    ...test.sessions.map((session) => sessionAgent(session).harness),
  ];
  const agent = / \[([^\]]*)\]$/.exec(blocks);
  return agent && harnesses.some((harness) => agent[1]!.startsWith(`${harness} `))
    ? blocks.slice(0, agent.index)
    : blocks;
}

const VERDICT_WEIGHT: Record<Verdict, number> = { failed: 0, passed: 1, todo: 2, skipped: 3 };

/**
 * The test × agent grid of `report`.
 *
 * @example
 * ```ts
 * const grid = testGrid(report);
 * grid.agents; // ["codex 0.171.0 · gpt-5.5", "claude-code 2.1.3 · sonnet"]
 * ```
 */
export function testGrid(report: RunReport): TestGrid {
  const agents: string[] = [];
  const column = (label: string): number => {
    let index = agents.indexOf(label);
    if (index < 0) index = agents.push(label) - 1;
    return index;
  };
  for (const test of report.tests) {
    for (const row of test.stats ?? []) column(agentLabel(row.agent));
    for (const session of test.sessions) column(agentLabel(sessionAgent(session)));
  }
  // One row per file, describe blocks (less describeAgents' agent) and title.
  const byKey = new Map<
    string,
    { test: ReportTest; describe: string; verdict: Verdict; cells: Array<GridCell | null> }
  >();
  for (const test of report.tests) {
    const describe = describeOf(test);
    const key = JSON.stringify([test.file, describe, test.title]);
    let row = byKey.get(key);
    if (!row) {
      row = { test, describe, verdict: test.verdict, cells: agents.map(() => null) };
      byKey.set(key, row);
    } else if (VERDICT_WEIGHT[test.verdict] < VERDICT_WEIGHT[row.verdict]) {
      row.verdict = test.verdict;
    }
    for (const stats of test.stats ?? []) {
      const at = column(agentLabel(stats.agent));
      row.cells[at] ??= {
        passed: stats.trials.passed,
        run: stats.trials.run,
        rate: stats.trials.rate,
        interval: stats.trials.interval,
        outcome: outcomeOf(stats.trials.passed, stats.trials.run),
      };
    }
  }
  const rows: GridRow[] = [...byKey.values()];
  const tools = new Map<
    string,
    { server: string; tool: string; listed: boolean; cells: { calls: number; succeeded: number }[] }
  >();
  const toolRow = (server: string, tool: string) => {
    const key = JSON.stringify([server, tool]);
    let row = tools.get(key);
    if (!row) {
      row = { server, tool, listed: false, cells: agents.map(() => ({ calls: 0, succeeded: 0 })) };
      tools.set(key, row);
    }
    return row;
  };
  for (const test of report.tests) {
    for (const session of test.sessions) {
      const at = agents.indexOf(agentLabel(sessionAgent(session)));
      for (const catalog of session.catalogs ?? []) {
        for (const tool of catalog.tools) toolRow(catalog.server, tool.name).listed = true;
      }
      for (const turn of session.turns) {
        for (const call of turn.toolCalls) {
          const cell = toolRow(call.server, call.tool).cells[at]!;
          cell.calls += 1;
          if (call.status === "success") cell.succeeded += 1;
        }
      }
    }
  }
  return {
    agents,
    rows,
    tools: [...tools.values()].sort(
      (a, b) => a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool),
    ),
  };
}
