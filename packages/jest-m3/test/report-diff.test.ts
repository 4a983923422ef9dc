// `jest-m3 diff` on crafted pairs of runs recorded in a real history: flipped tests, pass-rate
// deltas per test and agent, tool-catalog changes, new and vanished calls, latency, the
// baseline choices and the exit codes CI relies on.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../dist/cli/main";
import { recordRunInStore } from "../dist/store/record";
import { craftedRun, type CraftedTest } from "./support/crafted-run";
import { removeTempDir } from "./support/user-project";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-diff-"));
  mkdirSync(join(project, ".m3"));
});
afterEach(() => removeTempDir(project));

const history = (): string => join(project, ".m3", "history.sqlite");

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    cwd: project,
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}

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

test("a crafted pair: every kind of change listed, regressions make exit 1", async () => {
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
  expect(out).toContain("5/5 100% → 3/5 60% (-40 points)  quotes · test · m1");
  expect(out).toContain("4/5 80% → 5/5 100% (+20 points)  quotes · test · m2");
  expect(out).toContain("shipping: + track (added)");
  expect(out).toContain("shipping: - label (removed)");
  expect(out).toContain("shipping: ~ quote (schema changed)");
  expect(out).toContain("New calls (1)\n  shipping:track ×1  quotes");
  expect(out).toContain("Vanished calls (1)\n  shipping:label (was ×1)  labels");
  expect(out).toMatch(
    /Turn latency \(1\)\n {2}p50 100 ms → 900 ms, p95 120 ms → 1.40 s \(×11.67\) {2}quotes · test · m1/,
  );
  expect(out).toContain("4 regression(s):");
  expect(out).not.toContain("labels · test · m1"); // a single run's flip is not listed twice
  expect(out).toContain("test failed that passed: labels");
  expect(out).toContain("pass rate fell 100% → 60%: quotes (test · m1)");
  expect(out).toContain("tool removed from server shipping: label");
  expect(out).toContain("tool schema changed on server shipping: quote");

  const json = await cli("diff", "--json");
  expect(json.code).toBe(1);
  const parsed = JSON.parse(json.out) as { catalogs: unknown[]; regressions: string[] };
  expect(parsed.catalogs).toEqual([
    { server: "shipping", added: ["track"], removed: ["label"], schemaChanged: ["quote"] },
  ]);
  expect(parsed.regressions).toHaveLength(4);
});

test("no regression is exit 0; --strict fails on any change; an unchanged pair says so", async () => {
  await recordRunInStore(history(), craftedRun("run-a", baseline), null);
  await recordRunInStore(history(), craftedRun("run-b", baseline), null);
  const same = await cli("diff");
  expect(same).toMatchObject({ code: 0 });
  expect(same.out).toContain("No changes.\n\nNo regressions.");

  // Only an improvement and an added tool: not a regression, but a change.
  const better = structuredClone(baseline) as CraftedTest[];
  (better[0] as { trials: unknown }).trials = [
    { model: "m1", passed: 5, run: 5 },
    { model: "m2", passed: 5, run: 5 },
  ];
  await recordRunInStore(history(), craftedRun("run-c", better), null);
  expect(await cli("diff")).toMatchObject({ code: 0 });
  expect(await cli("diff", "--strict")).toMatchObject({ code: 1 });
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
