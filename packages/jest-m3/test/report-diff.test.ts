// `jest-m3 diff` on crafted runs recorded in a real history by the history's own writer
// (reports built by the reporter's code): verdicts per test and agent from Fisher's exact
// test with Holm's correction, latency by Mann-Whitney U, failing and flipped tests,
// tool-catalog changes, new and vanished calls, the baseline choices (pool:K among them) and
// the exit codes CI relies on.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordRunInStore } from "../dist/store/record";
import { runCli } from "./support/cli";
import { craftedRun, type CraftedTest } from "./support/crafted-run";
import { removeTempDir } from "./support/user-project";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-diff-"));
  mkdirSync(join(project, ".m3"));
});
afterEach(() => removeTempDir(project));

const history = (): string => join(project, ".m3", "history.sqlite");

const cli = (...argv: string[]) => runCli(project, ...argv);

const catalog = { shipping: { quote: "h-quote", label: "h-label" } };
const baseline: CraftedTest[] = [
  {
    name: "quotes",
    verdict: "passed",
    sessions: [
      { turnMs: [100, 120], calls: [{ server: "shipping", tool: "quote" }], catalog },
      { model: "m2", turnMs: [90], calls: [{ server: "shipping", tool: "quote" }], catalog },
    ],
    trials: [
      { model: "m1", passed: 5, run: 5 },
      { model: "m2", passed: 4, run: 5 },
    ],
  },
  {
    name: "labels",
    verdict: "passed",
    sessions: [{ turnMs: [200], calls: [{ server: "shipping", tool: "label" }], catalog }],
  },
  { name: "was red", verdict: "failed" },
];

test("a crafted pair: every kind of change listed; a failing test makes exit 1, small drops do not", async () => {
  await recordRunInStore(history(), craftedRun("run-a", baseline), null);
  await recordRunInStore(
    history(),
    craftedRun("run-b", [
      {
        name: "quotes",
        verdict: "passed",
        sessions: [
          {
            turnMs: [900, 1400],
            calls: [
              { server: "shipping", tool: "quote" },
              { server: "shipping", tool: "track" },
            ],
            catalog: { shipping: { quote: "h-quote-2", track: "h-track" } },
          },
          { model: "m2", turnMs: [95], calls: [{ server: "shipping", tool: "quote" }] },
        ],
        trials: [
          { model: "m1", passed: 3, run: 5 },
          { model: "m2", passed: 5, run: 5 },
        ],
      },
      { name: "labels", verdict: "failed", sessions: [{ turnMs: [210], calls: [] }] },
      { name: "was red", verdict: "passed" },
      { name: "brand new", verdict: "passed" },
    ]),
    null,
  );
  const { code, out } = await cli("diff");
  expect(code).toBe(1);
  expect(out).toContain("jest-m3 diff: run-a (red) → run-b (red)");
  expect(out).toMatch(
    /Tests that flipped \(2\)\n {2}passed → failed {2}labels[^\n]*\n {2}failed → passed {2}was red/,
  );
  expect(out).toContain("New tests (1)\n  brand new");
  expect(out).toContain(
    "Pass rates: Fisher's exact test (two-sided) per test and agent, Holm-corrected over 3 comparison(s), alpha 0.05.",
  );
  // 5/5 → 3/5 and 4/5 → 5/5 are within chance: undecided, with the trials that would tell.
  expect(out).toMatch(
    /Undecided: [^\n]*\(2\)\n {2}5\/5 100% → 3\/5 60% {2}\(p = 0\.44, adjusted 1\.00\) {2}quotes · test · m1\n {4}about \d+ more trials on each side would decide it, if the rates hold\n {2}4\/5 80% → 5\/5 100%/,
  );
  // labels ran once on both sides and flipped: flaky, not a regression by itself...
  expect(out).toMatch(
    /Flaky: [^\n]*\(1\)\n {2}1\/1 100% → 0\/1 0% {2}\(p = 1\.00, adjusted 1\.00\) {2}labels · test · m1/,
  );
  expect(out).not.toContain("Regressed:");
  expect(out).toContain("shipping: + track (added)");
  expect(out).toContain("shipping: - label (removed)");
  expect(out).toContain("shipping: ~ quote (schema changed)");
  expect(out).toContain("New calls (1)\n  shipping:track ×1  quotes");
  expect(out).toContain("Vanished calls (1)\n  shipping:label (was ×1)  labels");
  // Two turns on each side: far slower, but too few turns to be sure.
  expect(out).toMatch(
    /Turn latency \(1\): Mann-Whitney U[^\n]*\n(?: {2}[^\n]*\n){2} {2}undecided {2}p50 100 ms → 900 ms, p95 120 ms → 1.40 s \(×11.67; 2 vs 2 turns; p = 0\.33, adjusted 1\.00\) {2}quotes · test · m1/,
  );
  // ...but it fails its requirement now: that, alone, is what exits 1.
  expect(out).toContain("Failing their requirement (1)\n  labels  (a.test.ts; passed before)");
  expect(out).toContain("1 regression(s):\n  fails its requirement: labels");

  const json = await cli("diff", "--json");
  expect(json.code).toBe(1);
  const parsed = JSON.parse(json.out) as {
    catalogs: unknown[];
    regressions: string[];
    statistics: unknown;
    verdicts: Array<Record<string, unknown>>;
  };
  expect(parsed.catalogs).toEqual([
    {
      server: "shipping",
      added: ["track"],
      removed: ["label"],
      schemaChanged: ["quote"],
      descriptionChanged: [],
    },
  ]);
  expect(parsed.regressions).toEqual(["fails its requirement: labels"]);
  expect(parsed.statistics).toEqual({
    alpha: 0.05,
    catalogGrowth: 1.1,
    passMethod: "Fisher's exact test (two-sided), Holm-corrected",
    passComparisons: 3,
    metricMethod: "Mann-Whitney U (two-sided), Holm-corrected",
    metricComparisons: 3,
    scoreMethod:
      "Mann-Whitney U (two-sided) on the judge scores, Holm-corrected; the median (p50) compared, higher is better",
    scoreComparisons: 0,
    scoreMinChange: 0.1,
  });
  const m1 = parsed.verdicts.find((row) => row.test === "quotes" && row.agent === "test · m1");
  expect(m1).toMatchObject({
    verdict: "undecided",
    baseline: { passed: 5, trials: 5, rate: 1 },
    run: { passed: 3, trials: 5, rate: 0.6 },
    pValue: expect.closeTo(0.4444, 4),
    adjustedPValue: 1,
    method: "Fisher's exact test (two-sided), Holm-corrected",
    furtherTrials: { run: expect.any(Number), baseline: expect.any(Number) },
  });
});

test("no regression is exit 0; --strict fails on any change; an unchanged pair says so", async () => {
  await recordRunInStore(history(), craftedRun("run-a", baseline), null);
  await recordRunInStore(history(), craftedRun("run-b", baseline), null);
  const same = await cli("diff");
  // "was red" fails its requirement in both runs: the gate stays red for it.
  expect(same).toMatchObject({ code: 1 });
  expect(same.out).toContain("Unchanged: 3 test and agent pair(s), same pass rate");
  expect(same.out).toContain("1 regression(s):\n  fails its requirement: was red");

  // Only an improvement within chance, every test green: not a regression, but a change.
  const better = structuredClone(baseline.slice(0, 2)) as CraftedTest[];
  (better[0] as { trials: unknown }).trials = [
    { model: "m1", passed: 5, run: 5 },
    { model: "m2", passed: 5, run: 5 },
  ];
  await recordRunInStore(history(), craftedRun("run-c", better), null);
  const green = await cli("diff");
  expect(green).toMatchObject({ code: 0 });
  expect(green.out).toContain("No regressions.");
  expect(await cli("diff", "--strict")).toMatchObject({ code: 1 });
  // Two runs alike: nothing but the unchanged count, and it says so.
  await recordRunInStore(history(), craftedRun("run-d", better), null);
  expect((await cli("diff")).out).toContain(
    "Unchanged: 3 test and agent pair(s), same pass rate\n\nNo changes.\n\nNo regressions.",
  );
});

test("baselines: previous by default, last-green, an id prefix; mistakes are exit 2 with the runs listed", async () => {
  await recordRunInStore(history(), craftedRun("2026-01-green", baseline, true), null);
  await recordRunInStore(history(), craftedRun("2026-02-red", baseline, false), null);
  const failing = structuredClone(baseline) as CraftedTest[];
  (failing[1] as { verdict: string }).verdict = "failed";
  await recordRunInStore(history(), craftedRun("2026-03-red", failing, false), null);

  expect((await cli("diff")).out).toContain("2026-02-red (red) → 2026-03-red (red)");
  expect((await cli("diff", "--baseline", "last-green")).out).toContain(
    "2026-01-green (green) → 2026-03-red (red)",
  );
  expect((await cli("diff", "--baseline", "2026-01", "2026-02")).out).toContain(
    "2026-01-green (green) → 2026-02-red (red)",
  );
  const ambiguous = await cli("diff", "--baseline", "2026-0");
  expect(ambiguous.code).toBe(2);
  expect(ambiguous.err).toContain('More than one run starts with "2026-0"');
  const unknown = await cli("diff", "nope");
  expect(unknown.code).toBe(2);
  expect(unknown.err).toContain('No run "nope" in the history. Runs: 2026-01-green (green)');
  const noGreen = await cli("diff", "--baseline", "last-green", "2026-01-green");
  expect(noGreen).toMatchObject({
    code: 2,
    err: expect.stringContaining("No green run before 2026-01-green"),
  });
  expect(await cli("diff", "--latency-ratio", "0.5")).toMatchObject({
    code: 2,
    err: expect.stringContaining("--latency-ratio needs a number above 1"),
  });
});

test("no history, or a foreign file where the history should be: exit 2 with the reason", async () => {
  const none = await cli("diff");
  expect(none.code).toBe(2);
  expect(none.err).toContain("No run history at");
  expect(none.err).toContain("[M3_STORE_NOT_FOUND]");
  writeFileSync(history(), "not sqlite ".repeat(20));
  const foreign = await cli("diff");
  expect(foreign.code).toBe(2);
  expect(foreign.err).toContain("[M3_STORE_CORRUPT]");
});

/** A green run of one test per entry, each with its trials on model m1. */
const trialsRun = (
  id: string,
  rows: ReadonlyArray<[name: string, passed: number, run: number]>,
  sessions: CraftedTest["sessions"] = undefined,
): ReturnType<typeof craftedRun> =>
  craftedRun(
    id,
    rows.map(([name, passed, run], index) => ({
      name,
      verdict: "passed" as const,
      trials: [{ model: "m1", passed, run }],
      ...(index === 0 && sessions ? { sessions } : {}),
    })),
  );

/** Records in the history a crafted run of `id` whose tests ran `rows` (see trialsRun). */
const recordTrials = (...run: Parameters<typeof trialsRun>) =>
  recordRunInStore(history(), trialsRun(...run), null);

test("20/20 → 12/20 is regressed (exit 1) though the test still meets its minRate; 3/3 → 2/3 is undecided (exit 0)", async () => {
  await recordTrials("run-a", [["dropped", 20, 20]]);
  await recordTrials("run-b", [["dropped", 12, 20]]);
  const dropped = await cli("diff");
  expect(dropped.code).toBe(1);
  expect(dropped.out).toContain("jest-m3 diff: run-a (green) → run-b (green)");
  expect(dropped.out).toContain(
    "Regressed: the pass rate fell, beyond chance (1)\n  20/20 100% → 12/20 60%  (p = 0.0033, adjusted 0.0033)  dropped · test · m1",
  );
  expect(dropped.out).toContain(
    "1 regression(s):\n  regressed: dropped (test · m1) 20/20 → 12/20, adjusted p = 0.0033",
  );

  await recordTrials("run-c", [["few", 3, 3]]);
  await recordTrials("run-d", [["few", 2, 3]]);
  const few = await cli("diff");
  expect(few.code).toBe(0);
  expect(few.out).toContain(
    "Undecided: the rate moved, but too few trials to tell chance from change (1)\n  3/3 100% → 2/3 67%  (p = 1.00, adjusted 1.00)  few · test · m1\n    about 11 more trials on each side would decide it, if the rates hold",
  );
  expect(few.out).toContain("No regressions.");
  expect(await cli("diff", "--strict")).toMatchObject({ code: 1 });
  const json = JSON.parse((await cli("diff", "--json")).out) as { verdicts: unknown[] };
  expect(json.verdicts).toEqual([
    expect.objectContaining({
      test: "few",
      verdict: "undecided",
      pValue: expect.closeTo(1, 6),
      furtherTrials: { run: 11, baseline: 11 },
    }),
  ]);
});

test("Holm over a run's tests: 40 drops of p = 0.047 each are no regression together; one alone is", async () => {
  // 20/20 → 15/20: Fisher p = 0.047 on its own.
  const names = Array.from({ length: 40 }, (_, index) => `t${index}`);
  await recordTrials(
    "run-a",
    names.map((n) => [n, 20, 20]),
  );
  await recordTrials(
    "run-b",
    names.map((n) => [n, 15, 20]),
  );
  const many = await cli("diff", "--json");
  const parsed = JSON.parse(many.out) as {
    verdicts: Array<{ verdict: string; pValue: number; adjustedPValue: number }>;
  };
  expect(many.code).toBe(0);
  expect(parsed.verdicts).toHaveLength(40);
  for (const row of parsed.verdicts) {
    expect(row.pValue).toBeLessThan(0.05);
    expect(row.adjustedPValue).toBeGreaterThan(0.05);
    expect(row.verdict).toBe("undecided");
  }
  await recordTrials("run-c", [["t0", 20, 20]]);
  await recordTrials("run-d", [["t0", 15, 20]]);
  expect(await cli("diff")).toMatchObject({ code: 1 });
});

test("--alpha sets the level and is named; pool:K pools the last K runs so one run's few trials weigh more", async () => {
  await recordTrials("run-1", [["quotes", 5, 5]]);
  await recordTrials("run-2", [["quotes", 5, 5]]);
  await recordTrials("run-3", [["quotes", 5, 5]]);
  await recordTrials("run-4", [["quotes", 1, 5]]);

  // 5/5 → 1/5 against one run: p = 0.048, significant at 0.05, not at 0.01.
  expect(await cli("diff")).toMatchObject({ code: 1 });
  const strict = await cli("diff", "--alpha", "0.01");
  expect(strict.code).toBe(0);
  expect(strict.out).toContain("Holm-corrected over 1 comparison(s), alpha 0.01.");
  expect(strict.out).toContain("less than 1% of the time");
  expect(strict.out).toContain(
    "5/5 100% → 1/5 20%  (p = 0.048, adjusted 0.048)  quotes · test · m1",
  );

  // The three runs before, pooled: 15/15 → 1/5, p = 0.001: regressed even at 0.01.
  const pooled = await cli("diff", "--baseline", "pool:3", "--alpha", "0.01");
  expect(pooled.code).toBe(1);
  expect(pooled.out).toContain(
    "jest-m3 diff: pool:3: 3 runs pooled, run-1 … run-3 → run-4 (green)",
  );
  expect(pooled.out).toContain("15/15 100% → 1/5 20%");
  const json = JSON.parse((await cli("diff", "--json", "--baseline", "pool:10")).out) as {
    baselineSpec: string;
    baselineRuns: Array<{ id: string }>;
  };
  expect(json.baselineSpec).toBe("pool:10");
  expect(json.baselineRuns.map((run) => run.id)).toEqual(["run-1", "run-2", "run-3"]);

  expect(await cli("diff", "--baseline", "pool:0")).toMatchObject({
    code: 2,
    err: expect.stringContaining("K in pool:K must be a whole number of runs ≥ 1 (e.g. pool:5)"),
  });
  expect(await cli("diff", "--alpha", "5")).toMatchObject({
    code: 2,
    err: expect.stringContaining("--alpha needs a significance level between 0 and 1"),
  });
  expect(await cli("diff", "--baseline", "pool:2", "run-1")).toMatchObject({
    code: 2,
    err: expect.stringContaining("No run before run-1 in the history to pool"),
  });
});

test("turn latency: slower beyond chance and past the ratio is regressed (exit 1), listed apart from pass verdicts", async () => {
  const fast = [{ turnMs: [100, 110, 120, 105, 115, 102, 108, 111] }];
  const slow = [{ turnMs: [900, 950, 1000, 980, 940, 990, 1010, 1200] }];
  await recordTrials("run-a", [["quotes", 5, 5]], fast);
  await recordTrials("run-b", [["quotes", 5, 5]], slow);
  const { code, out } = await cli("diff");
  expect(code).toBe(1);
  expect(out).toContain("Unchanged: 1 test and agent pair(s), same pass rate");
  expect(out).toMatch(
    /Turn latency \(1\): Mann-Whitney U \(two-sided\)[^\n]*\n(?: {2}[^\n]*\n){2} {2}regressed {2}p50 108 ms → 980 ms, p95 120 ms → 1.20 s \(×10\.00; 8 vs 8 turns; p = 0\.00016, adjusted 0\.00016\) {2}quotes · test · m1/,
  );
  expect(out).toContain("regressed turn latency: quotes (test · m1) p95 ×10.00");
  // Past a ratio set above the change, the same shift is not listed.
  expect(await cli("diff", "--latency-ratio", "20")).toMatchObject({ code: 0 });
});
