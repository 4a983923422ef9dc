/**
 * CI summaries for GitHub Actions: the job summary (Markdown appended to the file
 * `GITHUB_STEP_SUMMARY` names) with the test × agent grid, the server × tool row, and the
 * regressions of `jest-m3 diff` against the previous run in the history. The workflow
 * annotations are in report/annotations.ts.
 */
import { appendFileSync } from "node:fs";
import { comparableTo, diffRuns, historyRuns, resolveRun, type RunDiff } from "../store/diff.js";
import { formatDiff } from "../store/diff-format.js";
import { readHistory } from "../store/history.js";
import { testGrid, type GridCell, type TestGrid } from "./grid.js";
import type { RunReport } from "./model.js";

/** Grid rows at most in a job summary (GitHub takes 1 MiB per step); the report has them all. */
export const SUMMARY_MAX_ROWS = 250;

/**
 * Text safe in a Markdown table cell: no markup, no line break, no column break. GitHub
 * sanitizes a summary's HTML too; this keeps a test name from changing the table at all.
 */
export function markdownCell(value: unknown): string {
  return String(value ?? "")
    .replace(/[\r\n]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]|#~!])/g, "\\$1");
}

const percent = (value: number): string => `${Math.round(value * 100)}%`;

const SIGN = { passed: "✅", failed: "❌", partial: "⚠️" } as const;

/** A cell: its sign, passed/run, rate and Wilson 95% interval. */
function cellText(cell: GridCell | null): string {
  if (!cell) return "·";
  const rate = `${cell.passed}/${cell.run}`;
  if (cell.run <= 1) return `${SIGN[cell.outcome]} ${rate}`;
  return `${SIGN[cell.outcome]} ${rate} ${percent(cell.rate)} (${percent(cell.interval[0])}–${percent(cell.interval[1])})`;
}

const VERDICT_SIGN: Record<string, string> = {
  passed: "✅",
  failed: "❌",
  skipped: "⏭️",
  todo: "📝",
};

/** The test × agent grid as Markdown tables (tests, then server × tool). */
export function gridMarkdown(grid: TestGrid): string {
  const header = (first: string): string[] => [
    `| ${first} | ${grid.agents.map(markdownCell).join(" | ")} |`,
    `| --- |${grid.agents.map(() => " --- |").join("")}`,
  ];
  const lines: string[] = [];
  if (grid.agents.length === 0) {
    lines.push("No test of this run ran an agent session.");
  } else {
    // Most to act on first when the grid is long: failed, then partial, then the rest.
    const weight = (row: TestGrid["rows"][number]): number =>
      row.verdict === "failed" || row.cells.some((cell) => cell?.outcome === "failed")
        ? 0
        : row.cells.some((cell) => cell?.outcome === "partial")
          ? 1
          : 2;
    const agentRows = grid.rows.filter((row) => row.cells.some((cell) => cell !== null));
    const shown = new Set(
      [...agentRows].sort((a, b) => weight(a) - weight(b)).slice(0, SUMMARY_MAX_ROWS),
    );
    lines.push(...header("test"));
    let group = "";
    for (const row of agentRows) {
      if (!shown.has(row)) continue;
      const here = `${row.test.file}${row.describe ? ` › ${row.describe}` : ""}`;
      if (here !== group) {
        group = here;
        lines.push(`| **${markdownCell(here)}** |${grid.agents.map(() => " |").join("")}`);
      }
      lines.push(
        `| ${VERDICT_SIGN[row.verdict] ?? ""} ${markdownCell(row.test.title)} | ${row.cells.map(cellText).join(" | ")} |`,
      );
    }
    const hidden = agentRows.length - shown.size;
    if (hidden > 0) {
      lines.push("", `… and ${hidden} more test(s), all passing on every agent: see report.html.`);
    }
    const without = grid.rows.length - agentRows.length;
    if (without > 0) lines.push("", `${without} test(s) ran no agent session (not in the grid).`);
  }
  if (grid.tools.length > 0) {
    lines.push(
      "",
      "**Server × tool** (each tool a server listed or an agent called): calls that succeeded / calls made, per agent (· none made).",
      "",
      ...header("server:tool"),
      ...grid.tools.map(
        (row) =>
          `| ${markdownCell(`${row.server}:${row.tool}`)} | ${row.cells
            .map((cell) =>
              cell.calls === 0
                ? "·"
                : `${cell.succeeded > 0 ? "✅" : "❌"} ${cell.succeeded}/${cell.calls}`,
            )
            .join(" | ")} |`,
      ),
    );
  }
  return lines.join("\n");
}

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

/** The regressions section: `diff`'s regressions, and its whole text folded below. */
export function regressionsMarkdown(diff: RunDiff | null, why?: string): string {
  if (!diff) return `### Regressions\n\n${markdownCell(why ?? "No previous run to compare with.")}`;
  const against = `${diff.baseline.id} (${diff.baseline.success ? "green" : "red"})`;
  const lines = [`### Regressions against the previous run ${markdownCell(against)}`, ""];
  const regressed = diff.verdicts.filter((row) => row.verdict === "regressed");
  if (diff.regressions.length === 0) lines.push("No regressions.");
  else {
    lines.push(...diff.regressions.map((line) => `- ${markdownCell(line)}`));
  }
  if (regressed.length > 0) {
    lines.push(
      "",
      "| test | agent | before | now | adjusted p |",
      "| --- | --- | --- | --- | --- |",
      ...regressed.map(
        (row) =>
          `| ${markdownCell(row.test)} | ${markdownCell(row.agent)} | ${row.baseline.passed}/${row.baseline.trials} | ${row.run.passed}/${row.run.trials} | ${row.adjustedPValue.toPrecision(2)} |`,
      ),
    );
  }
  lines.push(
    "",
    `Verdicts by ${markdownCell(diff.statistics.passMethod)}, alpha ${diff.statistics.alpha}.`,
    "",
    "<details><summary>jest-m3 diff</summary>",
    "",
    fenced(formatDiff(diff)),
    "",
    "</details>",
  );
  return lines.join("\n");
}

/** The whole job summary of a run. */
export function jobSummaryMarkdown(
  report: RunReport,
  diff: RunDiff | null,
  noDiffReason?: string,
): string {
  const { totals } = report;
  return [
    `## jest-m3 run ${markdownCell(report.runId ?? "")}: ${report.success ? "✅ passed" : "❌ failed"}`,
    "",
    `${totals.tests} tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped; ${totals.sessions} agent sessions, ${totals.calls} tool calls.`,
    "Each cell: trials passed / run on that agent, and for more than one trial the pass rate with its Wilson 95% interval.",
    "",
    gridMarkdown(testGrid(report)),
    "",
    regressionsMarkdown(diff, noDiffReason),
    "",
  ].join("\n");
}

/**
 * The diff of the run `runId` against the run before it in the history at `store`; null
 * (with why) when there is no history, no such run, or no run before it.
 */
export async function diffAgainstPrevious(
  store: string,
  runId: string | null,
): Promise<{ diff: RunDiff | null; why?: string }> {
  let db;
  try {
    db = await readHistory(store);
  } catch (error) {
    return { diff: null, why: `No history to compare with: ${(error as Error).message}` };
  }
  try {
    const runs = historyRuns(db);
    const run = resolveRun(runs, runId ?? "last");
    // Like with like: the latest complete earlier run of the same test selection.
    const earlier = runs.filter((other) => other.seq < run.seq);
    const baseline = earlier.filter(comparableTo(run)).at(-1);
    if (!baseline) {
      return {
        diff: null,
        why:
          earlier.length === 0
            ? "The history holds no run before this one."
            : "The history holds no complete run of the same test selection before this one.",
      };
    }
    return { diff: diffRuns(db, baseline, run) };
  } catch (error) {
    return { diff: null, why: (error as Error).message };
  } finally {
    db.close();
  }
}

/**
 * Appends the job summary of `report` to the file `GITHUB_STEP_SUMMARY` names, with the
 * diff against the previous run of the history at `store` (null: no diff, e.g. a shard).
 * Returns the file written, or null when the variable is not set.
 *
 * @example
 * ```ts
 * await writeJobSummary(report, historyPathOf(runDir), process.env);
 * ```
 */
export async function writeJobSummary(
  report: RunReport,
  store: string | null,
  env: NodeJS.ProcessEnv = process.env,
  note?: string,
): Promise<string | null> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return null;
  const { diff, why } = store
    ? await diffAgainstPrevious(store, report.runId)
    : { diff: null, why: note ?? "This run is not in the history; no diff." };
  appendFileSync(file, jobSummaryMarkdown(report, diff, why));
  return file;
}

/**
 * {@link writeJobSummary} for a command line: never throws; returns the line to print (empty
 * when `GITHUB_STEP_SUMMARY` is not set), saying where it went or why it did not.
 *
 * @example
 * ```ts
 * io.err(await appendJobSummary(report, store));
 * ```
 */
export async function appendJobSummary(
  report: RunReport,
  store: string | null,
  note?: string,
): Promise<string> {
  try {
    const file = await writeJobSummary(report, store, process.env, note);
    return file ? `jest-m3: job summary appended to ${file}\n` : "";
  } catch (error) {
    return `jest-m3: the job summary was NOT written: ${error instanceof Error ? error.message : String(error)}\n`;
  }
}
