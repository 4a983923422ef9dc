// Sequential trials on real sessions: the deterministic test harness calls a real MCP server
// that fails a known share of calls (its own log is the ground truth). trials() with
// `confidence` stops as soon as the outcome is decided, in the direction the share predicts,
// and says how many trials ran and why.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, TrialsFailed, expect, trials, type StdioServer } from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { useTempFolder } from "@jest-m3/test-support";
import { clopperPearson } from "../dist/stats/binomial";
import {
  jsonLines,
  makeUserProject,
  REPO,
  removeTempDir,
  runFolder,
  runJest,
} from "./support/user-project";

const logs = useTempFolder("jest-m3-sequential-", { each: true });

const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
afterAll(() => kit.close());

const calls = (log: string): Array<{ n: number; fails: boolean }> =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { n: number; fails: boolean });

/** One trial: the agent calls stock_level once; the trial passes when the call succeeded. */
function trialOn(pattern: string, log: string): () => Promise<void> {
  const server: StdioServer = {
    name: "stock",
    command: process.execPath,
    args: [join(__dirname, "fixtures", "share-failing-server.mjs")],
    env: { CALL_LOG: log, FAIL_PATTERN: pattern },
  };
  return async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server, tools: ["stock:stock_level"] });
    {
      await using open = await session.open();
      await open.send(`call stock:stock_level {"sku":"A-1"}\nreply done`);
    }
    expect(session.result).toHaveToolCall("stock_level", { status: "success", count: 1 });
  };
}

// The first n at which the exact interval (each look at 1 - 0.05/maxTrials) leaves minRate,
// and the first at which the rest could no longer change the outcome: computed here from
// the server's pattern, so the test states its prediction apart from trials().
function predictedStop(
  pattern: string,
  minRate: number,
  maxTrials: number,
): { interval: number; curtailed: number } {
  const atLeast = Math.ceil(minRate * maxTrials);
  let passed = 0;
  let interval = maxTrials;
  let curtailed = maxTrials;
  for (let n = 1; n <= maxTrials; n += 1) {
    if (pattern[(n - 1) % pattern.length] === "P") passed += 1;
    const [low, high] = clopperPearson(passed, n, 1 - 0.05 / maxTrials);
    if (interval === maxTrials && (low > minRate || high < minRate)) interval = n;
    if (curtailed === maxTrials && (passed >= atLeast || passed + maxTrials - n < atLeast)) {
      curtailed = n;
    }
  }
  return { interval, curtailed };
}

test("a server passing 90% of calls: stops early above minRate 0.5, well before the cap", async () => {
  const log = logs("calls.jsonl");
  const summary = await trials(40, trialOn("PPPPPPPPPF", log), {
    minRate: 0.5,
    confidence: 0.95,
  });
  const { interval: expected, curtailed } = predictedStop("PPPPPPPPPF", 0.5, 40);
  // The interval decides first (at 15), before 20 passes make the rest moot (at 22).
  expect(expected).toBeLessThan(curtailed);
  expect(summary.trials).toBe(expected);
  expect(summary.stopped).toMatchObject({ reason: "rate above minRate", maxTrials: 40 });
  expect(summary.stopped?.text).toContain(`stopped after ${expected} of at most 40 trials`);
  // Ground truth: the server saw exactly one call per trial run, and its failures are the
  // trials that failed.
  const seen = calls(log);
  expect(seen).toHaveLength(summary.trials);
  expect(summary.verdicts.map((verdict) => verdict.passed)).toEqual(
    seen.map((call) => !call.fails),
  );
});

test("a server passing 20% of calls: stops early below minRate 0.8 and fails, saying why", async () => {
  const log = logs("calls.jsonl");
  const failed = await trials(30, trialOn("FFFFP", log), {
    minRate: 0.8,
    confidence: 0.95,
  }).catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(TrialsFailed);
  const { summary, message } = failed as TrialsFailed;
  const { interval: expected, curtailed } = predictedStop("FFFFP", 0.8, 30);
  expect(expected).toBeLessThan(curtailed);
  expect(summary.trials).toBe(expected);
  expect(summary.stopped?.reason).toBe("rate below minRate");
  expect(message).toContain(`Sequential trials stopped after ${expected} of at most 30 trials`);
  expect(calls(log)).toHaveLength(expected);
});

test("atLeast with confidence: stops when the rest cannot change the outcome", async () => {
  const log = logs("calls.jsonl");
  // Every trial must pass: the first failure (call 5) decides it.
  const failed = await trials(10, trialOn("PPPPF", log), { confidence: 0.95 }).catch(
    (error: unknown) => error,
  );
  expect((failed as TrialsFailed).summary).toMatchObject({
    trials: 5,
    passed: 4,
    stopped: { reason: "requirement out of reach" },
  });
  expect(calls(log)).toHaveLength(5);
});

test("without confidence every trial runs; bad sequential options are usage errors first", async () => {
  const log = logs("calls.jsonl");
  const summary = await trials(6, trialOn("PPPPF", log), { minRate: 0.5 });
  expect(summary.trials).toBe(6);
  expect(summary.stopped).toBeUndefined();
  expect(calls(log)).toHaveLength(6);
  let ran = 0;
  const body = async (): Promise<void> => {
    ran += 1;
  };
  await expect(trials(3, body, { minRate: 0.5, confidence: 1 })).rejects.toThrow(
    /confidence must be a number between 0 and 1/,
  );
  await expect(trials(3, body, { minRate: 0.5, maxTrials: 10 })).rejects.toThrow(
    /maxTrials is the cap of sequential trials; give confidence too/,
  );
  await expect(trials(3, body, { confidence: 0.9, maxTrials: 0 })).rejects.toThrow(
    /maxTrials must be a whole number from 1 to 1000/,
  );
  expect(ran).toBe(0);
});

test("a real run's report says how many trials ran and why they stopped", () => {
  const project = makeUserProject({
    "stock.test.ts": `
import { join } from "node:path";
import { MCPTestKit, expect, trials } from "jest-m3";
import { testHarness } from ${JSON.stringify(join(REPO, "packages", "core", "dist", "testing.js"))};

test("stock levels", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m1"] }]);
  const server = {
    name: "stock",
    command: process.execPath,
    args: [${JSON.stringify(join(__dirname, "fixtures", "share-failing-server.mjs"))}],
    env: { CALL_LOG: join(__dirname, "calls.jsonl"), FAIL_PATTERN: "FFFFP" },
  };
  await trials(30, async () => {
    const session = agent!.session({ server, tools: ["stock:stock_level"] });
    {
      await using open = await session.open();
      await open.send('call stock:stock_level {"sku":"A-1"}\\nreply done');
    }
    expect(session.result).toHaveToolCall("stock_level", { status: "success", count: 1 });
  }, { minRate: 0.8, confidence: 0.95 });
});
`,
  });
  try {
    const run = runJest(project, { timeoutMs: 180_000 });
    expect(run.status).toBe(1);
    expect(run.output).toContain("Sequential trials stopped after 7 of at most 30 trials");
    const folder = runFolder(project);
    const report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as {
      stats: Array<{ test: { fullName: string }; trials: { run: number; passed: number } }>;
    };
    expect(report.stats.find((row) => row.test.fullName === "stock levels")?.trials).toMatchObject({
      run: 7,
      passed: 1,
    });
    // The HTML report shows what the test needed, and why its trials stopped.
    const stop =
      "a pass rate of at least 0.8 (stopped after 7 of at most 30 trials: the pass rate is below 0.8 (exact interval, 95% confidence over up to 30 looks))";
    expect(readFileSync(join(folder, "report.html"), "utf8")).toContain(JSON.stringify(stop));
    // The trials ledger keeps the reason as data.
    const ledger = jsonLines<{ stopped: { reason: string; maxTrials: number } }>(
      join(folder, "trials", readdirSync(join(folder, "trials"))[0]!),
    );
    expect(ledger.map((record) => record.stopped)).toEqual([
      expect.objectContaining({ reason: "rate below minRate", maxTrials: 30 }),
    ]);
    expect(calls(join(project, "calls.jsonl"))).toHaveLength(7);
  } finally {
    removeTempDir(project);
  }
});
