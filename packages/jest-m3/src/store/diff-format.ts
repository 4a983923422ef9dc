/**
 * `jest-m3 diff` as text: what to act on first (regressions, then undecided comparisons with
 * the trials they need), each statistic named with what it means, then the other changes.
 */
import { formatP, type RunDiff } from "./diff.js";
import type { MetricVerdict } from "./metric-verdicts.js";
import type { PassVerdict } from "./pass-verdicts.js";

const percent = (value: number): string => `${Math.round(value * 100)}%`;

const millis = (value: number): string =>
  value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;

const counts = (row: PassVerdict): string =>
  `${row.baseline.passed}/${row.baseline.trials} ${percent(row.baseline.rate)} → ${row.run.passed}/${row.run.trials} ${percent(row.run.rate)}`;

const stat = (row: { pValue: number; adjustedPValue: number }): string =>
  `p ${formatP(row.pValue)}, adjusted ${formatP(row.adjustedPValue).replace(/^= /, "")}`;

function needs(row: PassVerdict): string {
  const more = row.furtherTrials;
  if (!more) return "more than 100000 further trials would be needed to tell";
  return more.baseline === 0
    ? `about ${more.run} more trials of this run would decide it, if the rates hold`
    : `about ${more.run} more trials on each side would decide it, if the rates hold`;
}

const passLine = (row: PassVerdict): string =>
  `${counts(row)}  (${stat(row)})  ${row.test} · ${row.agent}`;

const metricLine = (row: MetricVerdict): string =>
  `${row.verdict.padEnd(9)}  p50 ${millis(row.baseline.p50)} → ${millis(row.run.p50)}, p95 ${millis(row.baseline.p95)} → ${millis(row.run.p95)} (×${row.ratio.toFixed(2)}; ${row.baseline.samples} vs ${row.run.samples} turns; ${stat(row)})  ${row.test} · ${row.agent}`;

const score = (value: number): string => String(Math.round(value * 1000) / 1000);

const scoreLine = (row: MetricVerdict): string =>
  `${row.verdict.padEnd(9)}  median ${score(row.baseline.p50)} → ${score(row.run.p50)} (${row.baseline.samples} vs ${row.run.samples} verdicts; ${stat(row)})  ${row.test} · ${row.agent} · ${row.metric.replace(/^judge score /, "criteria ")}`;

/** The diff as text, section by section; sections with nothing in them are left out. */
export function formatDiff(diff: RunDiff): string {
  const side = (run: { id: string; success: boolean }): string =>
    `${run.id} (${run.success ? "green" : "red"})`;
  const baseline =
    diff.baselineRuns.length > 1
      ? `${diff.baselineSpec}: ${diff.baselineRuns.length} runs pooled, ${diff.baselineRuns[0]!.id} … ${diff.baseline.id}`
      : side(diff.baseline);
  const { alpha, passComparisons, metricComparisons } = diff.statistics;
  const lines = [
    `jest-m3 diff: ${baseline} → ${side(diff.run)}`,
    ...diff.baselineNotes.map((note) => `  Note: ${note}.`),
    "",
    ...(passComparisons === 0
      ? ["Pass rates: no test ran on the same agent on both sides, so none is compared."]
      : [
          `Pass rates: Fisher's exact test (two-sided) per test and agent, Holm-corrected over ${passComparisons} comparison(s), alpha ${alpha}.`,
          `  A change is called regressed or improved only when chance alone would produce one this`,
          `  large less than ${alpha * 100}% of the time anywhere in the run; smaller drops are not regressions.`,
        ]),
  ];
  const header = lines.length;
  const section = (title: string, items: readonly string[]): void => {
    if (items.length === 0) return;
    lines.push("", `${title} (${items.length})`, ...items.map((item) => `  ${item}`));
  };
  const of = (word: PassVerdict["verdict"]): PassVerdict[] =>
    diff.verdicts.filter((row) => row.verdict === word);
  section("Regressed: the pass rate fell, beyond chance", of("regressed").map(passLine));
  section(
    "Undecided: the rate moved, but too few trials to tell chance from change",
    of("undecided").map((row) => `${passLine(row)}\n    ${needs(row)}`),
  );
  section(
    "Flaky: the test flipped without a significant change in its pass rate",
    of("flaky").map((row) => `${passLine(row)}\n    ${needs(row)}`),
  );
  section("Improved: the pass rate rose, beyond chance", of("improved").map(passLine));
  const unchanged = of("unchanged").length;
  if (unchanged > 0)
    lines.push("", `Unchanged: ${unchanged} test and agent pair(s), same pass rate`);
  section(
    "Failing their requirement",
    diff.failing.map((test) => `${test.test}  (${test.file}; ${test.from} before)`),
  );
  section(
    "Tests that flipped",
    diff.flipped.map((test) => `${test.from} → ${test.to}  ${test.test}  (${test.file})`),
  );
  section("New tests", diff.added);
  section("Tests no longer run", diff.removed);
  const moved = diff.metrics.filter((row) => row.verdict !== "unchanged");
  if (moved.length > 0) {
    lines.push(
      "",
      `Turn latency (${moved.length}): Mann-Whitney U (two-sided) on the turn durations, Holm-corrected over ${metricComparisons} comparison(s), alpha ${alpha};`,
      `  listed when p95 moved by the latency ratio; regressed or improved only when the turns of one side are`,
      `  slower than the other's beyond chance, undecided when too few turns to tell.`,
      ...moved.map((row) => `  ${metricLine(row)}`),
    );
  }
  if (diff.scores.length > 0) {
    const { scoreMinChange } = diff.statistics;
    lines.push(
      "",
      `Judge scores (${diff.scores.length}): ${diff.statistics.scoreMethod}, over ${diff.statistics.scoreComparisons} comparison(s), alpha ${alpha};`,
      `  regressed or improved only when the median moved by ${scoreMinChange} or more and the scores of one side`,
      `  are lower than the other's beyond chance; undecided when it moved that far with too few verdicts to tell.`,
      ...diff.scores.map((row) => `  ${scoreLine(row)}`),
    );
  }
  section(
    "Tool catalogs",
    diff.catalogs.flatMap((change) => [
      ...change.added.map((tool) => `${change.server}: + ${tool} (added)`),
      ...change.removed.map((tool) => `${change.server}: - ${tool} (removed)`),
      ...change.schemaChanged.map((tool) => `${change.server}: ~ ${tool} (schema changed)`),
      ...change.descriptionChanged.map(
        (tool) => `${change.server}: ~ ${tool} (description changed)`,
      ),
    ]),
  );
  if (diff.catalogCosts.length > 0) {
    const limit = diff.statistics.catalogGrowth;
    lines.push(
      "",
      `Catalog context cost (${diff.catalogCosts.length}): the bytes of a server's tool definitions each agent sent its model,`,
      `  listed when they grew by ×${limit.toFixed(2)} or more (a regression) or shrank as much (--catalog-growth sets the ratio).`,
      ...diff.catalogCosts.map(
        (row) =>
          `  ${row.change.padEnd(6)}  ${row.baseline.bytes} → ${row.run.bytes} bytes (×${row.ratio.toFixed(2)}; about ${row.baseline.estimatedTokens} → ${row.run.estimatedTokens} tokens; ${row.baseline.tools} → ${row.run.tools} tools)  ${row.server} · ${row.agent}`,
      ),
    );
  }
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
  // Only the header and the unchanged count: say so plainly.
  const rest = lines.slice(header).filter((line) => line !== "" && !line.startsWith("Unchanged:"));
  if (rest.length === 0) lines.push("", "No changes.");
  lines.push(
    "",
    diff.regressions.length === 0
      ? "No regressions."
      : `${diff.regressions.length} regression(s):\n${diff.regressions.map((line) => `  ${line}`).join("\n")}`,
  );
  return lines.join("\n");
}
