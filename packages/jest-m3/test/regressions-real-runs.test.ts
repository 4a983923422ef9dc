// `jest-m3 diff` on the history of real runs: a user's project (child Jest, preset
// "jest-m3") whose tests run trials through the test harness against a real MCP server that
// fails a known share of calls (its own call log is the ground truth). Each run is two
// `jest --shard` halves merged by `merge-reports` into one history entry, so the verdicts
// below are those of merged shards: a drop from 20/20 to 12/20 is regressed (exit 1) while
// every test still meets its minRate; 3/3 to 2/3 is undecided, with the trials it needs.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { queryRows } from "../dist/store/engine";
import { readHistory } from "../dist/store/history";
import { runCli as cli } from "./support/cli";
import { makeUserProject, REPO, removeTempDir, runJest } from "./support/user-project";

const TEST_HARNESS = join(REPO, "packages", "core", "dist", "testing.js");
const SERVER = join(__dirname, "fixtures", "share-failing-server.mjs");

const trialsTest = (name: string, log: string, pattern: string, count: number, minRate: number) => `
import { join } from "node:path";
import { MCPTestKit, expect, trials } from "jest-m3";
import { testHarness } from ${JSON.stringify(TEST_HARNESS)};

test(${JSON.stringify(name)}, async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m1"] }]);
  const server = {
    name: "stock",
    command: process.execPath,
    args: [${JSON.stringify(SERVER)}],
    env: { CALL_LOG: join(process.env.LOGS!, ${JSON.stringify(log)}), FAIL_PATTERN: process.env.${pattern} ?? "P" },
  };
  await trials(${count}, async () => {
    const session = agent!.session({ server, tools: ["stock:stock_level"] });
    {
      await using open = await session.open();
      await open.send('call stock:stock_level {"sku":"A-1"}\\nreply done');
    }
    expect(session.result).toHaveToolCall("stock_level", { status: "success", count: 1 });
  }, { minRate: ${minRate} });
});
`;

let project: string | undefined;
afterAll(() => removeTempDir(project));

const runFolders = (dir: string): string[] =>
  existsSync(join(dir, ".m3", "runs")) ? readdirSync(join(dir, ".m3", "runs")).sort() : [];

/** Runs the project as two shards with `env`, merges them; returns the merged run's id. */
async function shardedRun(dir: string, env: Record<string, string>): Promise<string> {
  mkdirSync(env.LOGS!, { recursive: true });
  const shards = [1, 2].map((index) => {
    const before = new Set(runFolders(dir));
    const run = runJest(dir, { env, args: [`--shard=${index}/2`], timeoutMs: 240_000 });
    expect(run.output).toContain(`shard ${index}/2: its blob is`);
    expect(run.status).toBe(0);
    return runFolders(dir).find((id) => !before.has(id))!;
  });
  const merged = await cli(dir, "merge-reports", ...shards.map((id) => join(".m3", "runs", id)));
  expect(merged).toMatchObject({ code: 0, err: "" });
  return /into run (\S+):/.exec(merged.out)![1]!;
}

const calls = (file: string): Array<{ fails: boolean }> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { fails: boolean });

test("merged shards of real runs: 20/20 → 12/20 regressed (exit 1) within minRate, 3/3 → 2/3 undecided", async () => {
  project = makeUserProject({
    "a-stock.test.ts": trialsTest("stock levels", "a.jsonl", "PATTERN_A", 20, 0.5),
    "b-few.test.ts": trialsTest("few trials", "b.jsonl", "PATTERN_B", 3, 0.6),
  });
  const before = await shardedRun(project, { LOGS: join(project, "logs-1") });
  const after = await shardedRun(project, {
    LOGS: join(project, "logs-2"),
    PATTERN_A: "PPPFF", // 12 of 20 calls succeed
    PATTERN_B: "PPF", // 2 of 3
  });
  // Ground truth: the server failed exactly the calls the pattern says, one call a trial.
  expect(calls(join(project, "logs-1", "a.jsonl")).filter((c) => !c.fails)).toHaveLength(20);
  expect(calls(join(project, "logs-2", "a.jsonl")).filter((c) => !c.fails)).toHaveLength(12);
  expect(calls(join(project, "logs-2", "b.jsonl")).filter((c) => !c.fails)).toHaveLength(2);

  // One history entry per merged run, none per shard; both green.
  const db = await readHistory(join(project, ".m3", "history.sqlite"));
  try {
    expect(queryRows(db, "SELECT id, success FROM runs ORDER BY seq")).toEqual([
      { id: before, success: 1 },
      { id: after, success: 1 },
    ]);
  } finally {
    db.close();
  }

  const diff = await cli(project, "diff");
  expect(diff.code).toBe(1);
  expect(diff.out).toContain(`jest-m3 diff: ${before} (green) → ${after} (green)`);
  expect(diff.out).toContain("Holm-corrected over 2 comparison(s), alpha 0.05.");
  expect(diff.out).toMatch(
    /Regressed: the pass rate fell, beyond chance \(1\)\n {2}20\/20 100% → 12\/20 60% {2}\(p = 0\.0033, adjusted 0\.0066\) {2}stock levels · test · m1/,
  );
  expect(diff.out).toMatch(
    /Undecided: [^\n]*\(1\)\n {2}3\/3 100% → 2\/3 67% {2}\(p = 1\.00, adjusted 1\.00\) {2}few trials · test · m1\n {4}about \d+ more trials on each side would decide it/,
  );
  expect(diff.out).not.toContain("Failing their requirement");
  expect(diff.out).toContain(
    "1 regression(s):\n  regressed: stock levels (test · m1) 20/20 → 12/20, adjusted p = 0.0066",
  );
  const json = JSON.parse((await cli(project, "diff", "--json")).out) as {
    verdicts: Array<{ test: string; verdict: string; run: { passed: number; trials: number } }>;
  };
  expect(
    json.verdicts.map((row) => [row.test, row.verdict, row.run.passed, row.run.trials]),
  ).toEqual([
    ["stock levels", "regressed", 12, 20],
    ["few trials", "undecided", 2, 3],
  ]);
});
