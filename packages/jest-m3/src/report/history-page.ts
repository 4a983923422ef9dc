/**
 * The history page (`npx jest-m3 show-history`): one self-contained HTML file from the
 * results folder's history.sqlite. Over the last N runs: each run (linking to its report),
 * the pass rate per test and agent as small inline SVG charts, the flaky tests (how often
 * their verdict flipped from one run to the next), and the slowest tests.
 *
 * The page has no script at all: it is drawn here, every value of the history through
 * {@link escapeHtml}, under the report's content policy (nothing loaded, only the page's own
 * style element, by hash).
 */
import { createHash } from "node:crypto";
import { queryRows, type SqlDatabase } from "../store/engine.js";
import { historyRuns, type HistoryRun } from "../store/diff.js";
import { escapeHtml } from "./html.js";

/** Runs a history page shows by default. */
export const DEFAULT_HISTORY_RUNS = 30;

/** A run of the page, with its totals. */
export interface HistoryPageRun extends HistoryRun {
  readonly tests: number;
  readonly passed: number;
  readonly failed: number;
}

/** One test on one agent over the runs: per run (oldest first) passed/run, or null. */
export interface PassSeries {
  readonly testId: string;
  readonly file: string;
  readonly test: string;
  readonly agent: string;
  readonly points: ReadonlyArray<{ readonly passed: number; readonly run: number } | null>;
}

/** A test whose verdict changed between consecutive runs it ran in. */
export interface FlakyTest {
  readonly testId: string;
  readonly file: string;
  readonly test: string;
  /** Per run (oldest first), its verdict, or null where it did not run. */
  readonly verdicts: ReadonlyArray<string | null>;
  readonly flips: number;
  /** Flips over the chances to flip (runs it ran in passed or failed, less one). */
  readonly flipRate: number;
}

/** A test by its duration over the runs. */
export interface SlowTest {
  readonly testId: string;
  readonly file: string;
  readonly test: string;
  readonly medianMs: number;
  readonly latestMs: number | null;
  readonly durations: ReadonlyArray<number | null>;
}

/** The model tokens of one test on one agent over the runs (sessions summed), or null. */
export interface TokenSeries {
  readonly testId: string;
  readonly file: string;
  readonly test: string;
  readonly agent: string;
  readonly points: ReadonlyArray<{
    readonly input: number;
    readonly output: number;
    readonly sessions: number;
  } | null>;
}

/** What a history page shows. */
export interface HistoryPageData {
  /** The last runs, oldest first. */
  readonly runs: readonly HistoryPageRun[];
  /** Runs in the whole history. */
  readonly totalRuns: number;
  readonly series: readonly PassSeries[];
  readonly flaky: readonly FlakyTest[];
  readonly slowest: readonly SlowTest[];
  /** Tokens per test and agent, where the provider tap counted them. */
  readonly tokens: readonly TokenSeries[];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * The data of the history page: the last `limit` runs of an open history, read with the
 * store's own queries (its tables `runs`, `tests` and `trials`).
 *
 * @example
 * ```ts
 * const db = await readHistory(path);
 * const data = historyPageData(db, 30);
 * db.close();
 * ```
 */
export function historyPageData(db: SqlDatabase, limit = DEFAULT_HISTORY_RUNS): HistoryPageData {
  const all = historyRuns(db);
  const chosen = all.slice(-limit);
  const totals = new Map(
    queryRows(db, "SELECT id, tests, passed, failed FROM runs").map((row) => [
      String(row.id),
      { tests: Number(row.tests), passed: Number(row.passed), failed: Number(row.failed) },
    ]),
  );
  const runs: HistoryPageRun[] = chosen.map((run) => ({
    ...run,
    ...(totals.get(run.id) ?? { tests: 0, passed: 0, failed: 0 }),
  }));
  const index = new Map(runs.map((run, at) => [run.id, at]));
  const first = runs[0]?.seq ?? 0;
  const tests = new Map<
    string,
    { file: string; name: string; verdicts: (string | null)[]; durations: (number | null)[] }
  >();
  for (const row of queryRows(
    db,
    "SELECT tests.run_id, test_id, file, full_name, verdict, duration_ms FROM tests JOIN runs ON runs.id = tests.run_id WHERE runs.seq >= ? ORDER BY runs.seq",
    [first],
  )) {
    const at = index.get(String(row.run_id));
    if (at === undefined) continue;
    const id = String(row.test_id);
    let test = tests.get(id);
    if (!test) {
      test = {
        file: String(row.file),
        name: String(row.full_name),
        verdicts: runs.map(() => null),
        durations: runs.map(() => null),
      };
      tests.set(id, test);
    }
    test.name = String(row.full_name);
    test.verdicts[at] = String(row.verdict);
    test.durations[at] = typeof row.duration_ms === "number" ? row.duration_ms : null;
  }
  /** A series being filled in, run by run. */
  type Line<P> = {
    testId: string;
    file: string;
    test: string;
    agent: string;
    points: (P | null)[];
  };
  /** The points of `testId` on `agent` in `lines`: a line with no points yet at its first row. */
  const pointsOf = <P>(
    lines: Map<string, Line<P>>,
    testId: string,
    agent: string,
  ): (P | null)[] => {
    const key = JSON.stringify([testId, agent]);
    let line = lines.get(key);
    if (!line) {
      const test = tests.get(testId);
      line = {
        testId,
        file: test?.file ?? "",
        test: test?.name ?? testId,
        agent,
        points: runs.map(() => null),
      };
      lines.set(key, line);
    }
    return line.points;
  };
  const series = new Map<string, Line<{ passed: number; run: number }>>();
  for (const row of queryRows(
    db,
    "SELECT trials.run_id, test_id, harness, model, version, trials.run, trials.passed FROM trials JOIN runs ON runs.id = trials.run_id WHERE runs.seq >= ? ORDER BY runs.seq",
    [first],
  )) {
    const at = index.get(String(row.run_id));
    if (at === undefined) continue;
    const agent = `${String(row.harness)}${row.version ? ` ${String(row.version)}` : ""} · ${String(row.model)}`;
    pointsOf(series, String(row.test_id), agent)[at] = {
      passed: Number(row.passed),
      run: Number(row.run),
    };
  }
  const tokens = new Map<string, Line<{ input: number; output: number; sessions: number }>>();
  for (const row of queryRows(
    db,
    `SELECT s.run_id, s.test_id, s.harness, s.model, SUM(s.input_tokens) AS input,
       SUM(s.output_tokens) AS output, COUNT(*) AS n FROM sessions s JOIN runs ON runs.id = s.run_id
     WHERE runs.seq >= ? AND s.input_tokens IS NOT NULL
     GROUP BY s.run_id, s.test_id, s.harness, s.model ORDER BY runs.seq`,
    [first],
  )) {
    const at = index.get(String(row.run_id));
    if (at === undefined) continue;
    const agent = `${String(row.harness)} · ${String(row.model)}`;
    pointsOf(tokens, String(row.test_id), agent)[at] = {
      input: Number(row.input),
      output: Number(row.output),
      sessions: Number(row.n),
    };
  }
  const flaky: FlakyTest[] = [];
  const slowest: SlowTest[] = [];
  for (const [testId, test] of tests) {
    const decided = test.verdicts.filter(
      (verdict): verdict is string => verdict === "passed" || verdict === "failed",
    );
    let flips = 0;
    for (let at = 1; at < decided.length; at += 1) if (decided[at] !== decided[at - 1]) flips += 1;
    if (flips > 0) {
      flaky.push({
        testId,
        file: test.file,
        test: test.name,
        verdicts: test.verdicts,
        flips,
        flipRate: flips / (decided.length - 1),
      });
    }
    const known = test.durations.filter((value): value is number => value !== null);
    if (known.length > 0) {
      slowest.push({
        testId,
        file: test.file,
        test: test.name,
        medianMs: median(known),
        latestMs: test.durations.at(-1) ?? null,
        durations: test.durations,
      });
    }
  }
  flaky.sort((a, b) => b.flipRate - a.flipRate || b.flips - a.flips);
  slowest.sort((a, b) => b.medianMs - a.medianMs);
  return {
    runs,
    totalRuns: all.length,
    series: [...series.values()].sort(
      (a, b) =>
        a.file.localeCompare(b.file) ||
        a.test.localeCompare(b.test) ||
        a.agent.localeCompare(b.agent),
    ),
    flaky: flaky.slice(0, 25),
    slowest: slowest.slice(0, 25),
    tokens: [...tokens.values()].sort(
      (a, b) =>
        a.file.localeCompare(b.file) ||
        a.test.localeCompare(b.test) ||
        a.agent.localeCompare(b.agent),
    ),
  };
}

/** The history page's CSS. */
export const HISTORY_STYLES = `
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#dde2ea; --bg:#f6f8fb; --pass:#137333; --fail:#c5221f; --part:#b06000; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
header { padding:10px 16px; background:#fff; border-bottom:1px solid var(--line); }
h1 { font-size:16px; margin:0; } h2 { font-size:15px; margin:20px 16px 6px; }
.meta, .note { color:var(--muted); font-size:12px; } .note { margin:0 16px 6px; }
table { border-collapse:collapse; margin:0 16px; background:#fff; font-size:12px; }
th, td { text-align:left; border-bottom:1px solid #eef1f5; padding:3px 8px; vertical-align:middle; }
th { color:var(--muted); font-weight:600; }
.green { color:var(--pass); font-weight:600; } .red { color:var(--fail); font-weight:600; }
svg { display:block; }
rect.pass { fill:var(--pass); } rect.fail { fill:var(--fail); } rect.part { fill:var(--part); }
rect.none { fill:#e3e7ee; } rect.skip { fill:#c9b458; } rect.dur { fill:#1a56db; }
.name { max-width:520px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
`;

const sha256 = (text: string): string =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The history page's content policy: the report's (nothing loaded from anywhere, no base,
 * no form target), with no script at all, and only its own style element, by hash.
 */
export const HISTORY_POLICY = [
  "default-src 'none'",
  "script-src 'none'",
  `style-src ${sha256(HISTORY_STYLES)}`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const BAR = 7;
const HEIGHT = 22;

/** A chart of one bar per run: `bars` give each bar's class, height (0 to 1) and tooltip. */
function barChart(
  label: string,
  bars: ReadonlyArray<{ readonly kind: string; readonly height: number; readonly title: string }>,
): string {
  const width = Math.max(1, bars.length) * BAR;
  const rects = bars
    .map((bar, at) => {
      const h = Math.max(2, Math.round(bar.height * HEIGHT));
      return `<rect class="${escapeHtml(bar.kind)}" x="${escapeHtml(at * BAR)}" y="${escapeHtml(HEIGHT - h)}" width="${BAR - 1}" height="${escapeHtml(h)}"><title>${escapeHtml(bar.title)}</title></rect>`;
    })
    .join("");
  return `<svg class="chart" width="${escapeHtml(width)}" height="${HEIGHT}" viewBox="0 0 ${escapeHtml(width)} ${HEIGHT}" role="img" aria-label="${escapeHtml(label)}">${rects}</svg>`;
}

const percent = (value: number): string => `${Math.round(value * 100)}%`;
const millis = (value: number | null): string =>
  value === null
    ? "-"
    : value < 1000
      ? `${Math.round(value)} ms`
      : `${(value / 1000).toFixed(2)} s`;

/**
 * The history page. `reportHref` gives a run's report link, relative to where the page is
 * written (null: that run has no report any more; its id is shown without a link).
 *
 * @example
 * ```ts
 * writeFileSync(join(resultsDir, "history.html"), renderHistoryHtml(data, (id) => `runs/${id}/report.html`));
 * ```
 */
export function renderHistoryHtml(
  data: HistoryPageData,
  reportHref: (runId: string) => string | null,
): string {
  const { runs } = data;
  const runLink = (run: HistoryPageRun): string => {
    const href = reportHref(run.id);
    return href === null
      ? `<span class="run-id">${escapeHtml(run.id)}</span>`
      : `<a class="run-link" href="${escapeHtml(href)}">${escapeHtml(run.id)}</a>`;
  };
  const runTitle = (at: number): string => `run ${runs[at]?.id ?? ""}`;
  const runsTable = [...runs]
    .reverse()
    .map(
      (run) =>
        `<tr class="run"><td>${escapeHtml(run.seq)}</td><td>${runLink(run)}</td><td>${escapeHtml(run.finishedAt)}</td><td class="${run.success ? "green" : "red"}">${run.success ? "green" : "red"}</td><td>${escapeHtml(run.tests)}</td><td>${escapeHtml(run.passed)}</td><td>${escapeHtml(run.failed)}</td></tr>`,
    )
    .join("");
  const overall = barChart(
    "tests passed per run",
    runs.map((run) => ({
      kind: run.success ? "pass" : "fail",
      height: run.tests === 0 ? 0 : run.passed / run.tests,
      title: `${run.id}: ${run.passed}/${run.tests} passed`,
    })),
  );
  const seriesRows = data.series
    .map((entry) => {
      const latest = [...entry.points].reverse().find((point) => point !== null) ?? null;
      const known = entry.points.filter((point) => point !== null);
      const passed = known.reduce((sum, point) => sum + point.passed, 0);
      const run = known.reduce((sum, point) => sum + point.run, 0);
      const chart = barChart(
        `pass rate of ${entry.test} on ${entry.agent}, run by run`,
        entry.points.map((point, at) =>
          point === null
            ? { kind: "none", height: 1, title: `${runTitle(at)}: did not run` }
            : {
                kind: point.passed === point.run ? "pass" : point.passed === 0 ? "fail" : "part",
                height: point.run === 0 ? 0 : Math.max(0.08, point.passed / point.run),
                title: `${runTitle(at)}: ${point.passed}/${point.run} passed`,
              },
        ),
      );
      return `<tr class="series"><td class="name" title="${escapeHtml(entry.file)}">${escapeHtml(entry.test)}</td><td>${escapeHtml(entry.agent)}</td><td>${chart}</td><td>${latest ? `${escapeHtml(latest.passed)}/${escapeHtml(latest.run)}` : "-"}</td><td>${escapeHtml(run === 0 ? "-" : percent(passed / run))} (${escapeHtml(passed)}/${escapeHtml(run)})</td></tr>`;
    })
    .join("");
  const flakyRows = data.flaky
    .map((test) => {
      const chart = barChart(
        `verdicts of ${test.test}, run by run`,
        test.verdicts.map((verdict, at) => ({
          kind:
            verdict === "passed"
              ? "pass"
              : verdict === "failed"
                ? "fail"
                : verdict === null
                  ? "none"
                  : "skip",
          height: 1,
          title: `${runTitle(at)}: ${verdict ?? "did not run"}`,
        })),
      );
      return `<tr class="flaky"><td class="name" title="${escapeHtml(test.file)}">${escapeHtml(test.test)}</td><td>${chart}</td><td>${escapeHtml(test.flips)}</td><td>${escapeHtml(percent(test.flipRate))}</td></tr>`;
    })
    .join("");
  const slowest = data.slowest[0]?.medianMs ?? 1;
  const slowRows = data.slowest
    .map((test) => {
      const chart = barChart(
        `duration of ${test.test}, run by run`,
        test.durations.map((value, at) =>
          value === null
            ? { kind: "none", height: 0, title: `${runTitle(at)}: did not run` }
            : {
                kind: "dur",
                height: Math.min(1, value / (2 * slowest)),
                title: `${runTitle(at)}: ${millis(value)}`,
              },
        ),
      );
      return `<tr class="slow"><td class="name" title="${escapeHtml(test.file)}">${escapeHtml(test.test)}</td><td>${chart}</td><td>${escapeHtml(millis(test.medianMs))}</td><td>${escapeHtml(millis(test.latestMs))}</td></tr>`;
    })
    .join("");
  const most = Math.max(
    1,
    ...data.tokens.flatMap((entry) =>
      entry.points.map((point) => (point ? point.input + point.output : 0)),
    ),
  );
  const tokenRows = data.tokens
    .map((entry) => {
      const latest = [...entry.points].reverse().find((point) => point !== null) ?? null;
      const chart = barChart(
        `tokens of ${entry.test} on ${entry.agent}, run by run`,
        entry.points.map((point, at) =>
          point === null
            ? { kind: "none", height: 0, title: `${runTitle(at)}: not recorded` }
            : {
                kind: "dur",
                height: (point.input + point.output) / most,
                title: `${runTitle(at)}: ${point.input} in, ${point.output} out (${point.sessions} session(s))`,
              },
        ),
      );
      return `<tr class="tokens"><td class="name" title="${escapeHtml(entry.file)}">${escapeHtml(entry.test)}</td><td>${escapeHtml(entry.agent)}</td><td>${chart}</td><td>${latest ? `${escapeHtml(latest.input)} in / ${escapeHtml(latest.output)} out` : "-"}</td></tr>`;
    })
    .join("");
  const section = (title: string, note: string, head: string, rows: string, none: string): string =>
    `<h2>${escapeHtml(title)}</h2><p class="note">${escapeHtml(note)}</p>${
      rows
        ? `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`
        : `<p class="note">${escapeHtml(none)}</p>`
    }`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${HISTORY_POLICY}">
<title>jest-m3 history</title>
<style>${HISTORY_STYLES}</style>
</head>
<body>
<header>
<h1>jest-m3 history</h1>
<div class="meta" id="summary">${escapeHtml(`the last ${runs.length} of ${data.totalRuns} run(s)`)}${runs.length ? ` · ${escapeHtml(runs[0]!.id)} … ${escapeHtml(runs.at(-1)!.id)}` : ""}</div>
</header>
<h2>Runs</h2>
<p class="note">Tests passed per run, oldest on the left; each run links to its report.</p>
<div class="note">${overall}</div>
<table id="runs"><thead><tr><th>#</th><th>run</th><th>finished</th><th>result</th><th>tests</th><th>passed</th><th>failed</th></tr></thead><tbody>${runsTable}</tbody></table>
${section(
  "Pass rate per test and agent",
  "One bar per run, oldest on the left: its height the pass rate (trials passed / run), green all passed, amber some, red none, grey did not run.",
  "<th>test</th><th>agent</th><th>runs</th><th>latest</th><th>over these runs</th>",
  seriesRows,
  "No test ran on an agent in these runs.",
).replace("<table>", '<table id="series">')}
${section(
  "Flaky tests",
  "Tests whose verdict flipped between passed and failed from one run to the next; flip rate: flips over the runs it ran in, less one.",
  "<th>test</th><th>verdicts</th><th>flips</th><th>flip rate</th>",
  flakyRows,
  "No test flipped in these runs.",
).replace("<table>", '<table id="flaky">')}
${section(
  "Slowest tests",
  "By median duration over these runs; one bar per run.",
  "<th>test</th><th>duration</th><th>median</th><th>latest</th>",
  slowRows,
  "No test durations recorded in these runs.",
).replace("<table>", '<table id="slowest">')}
${section(
  "Model tokens per test and agent",
  "The tokens the provider tap counted, the test's sessions on the agent summed; one bar per run, its height the total against the largest shown.",
  "<th>test</th><th>agent</th><th>tokens</th><th>latest</th>",
  tokenRows,
  "No run of these recorded model tokens (a session without the provider tap counts none).",
).replace("<table>", '<table id="tokens">')}
</body>
</html>
`;
}
