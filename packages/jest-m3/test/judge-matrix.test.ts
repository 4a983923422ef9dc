// A judged matrix over four real agents: the shipping example's configuration and script on
// Codex, Claude Code, Gemini CLI and OpenCode (the real binaries, the scripted model on
// loopback as their model and as the judge), two trials each, every trial judged, the
// trials requiring a pass rate and a mean judge score. The judge tells the agents apart:
// where an agent hands the model only a tool's text content, the scripted reply misses the
// amount, and that agent's mean score falls below the threshold. Run by Jest as a child process, as a
// user runs it. Ground truth: the shipping server's own call log and the scripted model's
// journal (every judge request it answered); then the trials ledger, report.json's
// per-agent statistics and the end-of-run table must agree with them.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readRecords } from "../dist/shared/run-ledger";
import { exampleRunForFile, runFolder, SHIPPING_SERVER } from "./support/user-project";

const AGENTS =
  "codex=gpt-5.5*2,claude-code=claude-sonnet-5-5*2,gemini=gemini-scripted*2,opencode=scripted-model*2";
const CRITERIA = "the reply states the amount the shipping quote returned";

const judgedTest = `
import { MCPTestKit, describeAgents, expect, trials } from "jest-m3";

const server = {
  name: "shipping",
  command: process.execPath,
  args: [${JSON.stringify(SHIPPING_SERVER)}],
  env: { SHIPPING_CALL_LOG: process.env.SHIPPING_CALL_LOG! },
};

describeAgents("judged quotes", (agent) => {
  test("the reply uses the quoted amount", async () => {
    const summary = await trials(agent, async () => {
      await using kit = new MCPTestKit({ env: {} });
      const [selection] = kit.agents([agent.selection]);
      const session = selection!.session({ server, tools: ["shipping:shipping_quote"], timeout: 120_000 });
      let turn;
      {
        await using open = await session.open();
        turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
      }
      await expect(turn).toPassJudge(${JSON.stringify(CRITERIA)}, { threshold: 0.8 });
      const [verdict] = session.result.trace.verdicts ?? [];
      expect(verdict).toMatchObject({ turnId: turn.snapshot.turnId, score: 0.9, pass: true });
    }, { minRate: 0.5, minMeanScore: 0.8 });
    expect([summary.trials, summary.meanScore, summary.scored]).toEqual([2, 0.9, 2]);
  }, 300_000); // OpenCode's two trials took 3 minutes on the loaded 2-core box (30 s idle)
});
`;

const shared = exampleRunForFile(
  { "judged.test.ts": judgedTest },
  {
    env: (project) => ({ M3_AGENTS: AGENTS, SHIPPING_CALL_LOG: join(project, "calls.jsonl") }),
    timeoutMs: 600_000,
  },
);

interface StatsRow {
  agent: { harness: string };
  trials: { run: number; passed: number };
  judgeScores: { mean: number; n: number } | null;
}

interface JournalEntry {
  body?: { model?: string };
  conversation?: { user?: string };
  decision?: unknown;
}

test("four agents, two judged trials each: the judge's scores per agent are what the server returned and the replies said", () => {
  // Codex and Claude Code hand the model the call's structured result, so the scripted
  // reply states the amount; Gemini CLI and OpenCode hand it the text content only, so the
  // reply's {{result.amount}} is missing, the judge scores 0.1, and their trials fail on the
  // pass rate and on the mean judge score alike.
  expect(shared.status).toBe(1);
  expect(shared.output).toContain("report written to");
  const need = "the test needs a pass rate of at least 0.5 and a mean judge score of at least 0.8.";
  expect(
    shared.output.split(`TrialsFailed: 0 of 2 trials passed, mean judge score 0.1; ${need}`),
  ).toHaveLength(3);
  expect(shared.output).toMatch(
    /judged quotes \[codex [^\]]+\]\n\s+✓ the reply uses the quoted amount/,
  );
  expect(shared.output).toMatch(
    /judged quotes \[claude-code [^\]]+\]\n\s+✓ the reply uses the quoted amount/,
  );
  const folder = runFolder(shared.project);

  // Ground truth 1: the server received one quote per trial, 8 in all, and each returned 9.
  const calls = readFileSync(join(shared.project, "calls.jsonl"), "utf8").trim().split("\n");
  expect(calls.map((line) => JSON.parse(line) as unknown)).toEqual(
    Array.from({ length: 8 }, () => ({
      tool: "shipping_quote",
      arguments: { weight_kg: 2, zone: "local" },
    })),
  );
  // Ground truth 2: the scripted model answered 8 judge requests, each shown the criteria
  // and the amount the wire saw; 4 replies stated it, 4 did not.
  const journalFile = join(folder, "model-journal.json");
  expect(existsSync(journalFile)).toBe(true);
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as
    JournalEntry[] | { entries: JournalEntry[] };
  const entries = Array.isArray(journal) ? journal : journal.entries;
  const judged = entries
    .map((entry) => entry.conversation?.user ?? "")
    .filter((user) => user.startsWith("## Criteria"));
  expect(judged).toHaveLength(8);
  for (const user of judged) {
    expect(user).toContain(CRITERIA);
    expect(user).toContain('"amount":9');
  }
  const replies = judged.map((user) => user.slice(user.lastIndexOf("Reply:")));
  expect(replies.filter((reply) => reply.includes("is 9 USD."))).toHaveLength(4);
  expect(replies.filter((reply) => reply.includes("<missing result.amount>"))).toHaveLength(4);

  // The trials ledger: per agent, 2 trials, each scored by its one verdict.
  const ledger = readRecords<{
    agent: { harness: string };
    meanScore: number | null;
    scored: number;
    need: string;
    verdicts: { score: number | null; judged: number }[];
  }>(folder, "trials");
  const expected: Record<string, number> = {
    codex: 0.9,
    "claude-code": 0.9,
    gemini: 0.1,
    opencode: 0.1,
  };
  expect(
    ledger
      .map((record) => [
        record.agent.harness,
        record.meanScore,
        record.scored,
        record.verdicts.map((v) => [v.score, v.judged]),
      ])
      .sort(),
  ).toEqual(
    Object.entries(expected)
      .map(([harness, score]) => [
        harness,
        score,
        2,
        [
          [score, 1],
          [score, 1],
        ],
      ])
      .sort(),
  );
  expect(ledger[0]!.need).toBe("a pass rate of at least 0.5, a mean judge score of at least 0.8");

  // report.json's per-agent statistics: the pass count, the mean judge score and n.
  const stats = (
    JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as { stats: StatsRow[] }
  ).stats;
  expect(
    stats
      .map((row) => [row.agent.harness, row.trials.passed, row.trials.run, row.judgeScores])
      .sort(),
  ).toEqual(
    Object.entries(expected)
      .map(([harness, mean]) => [harness, mean > 0.5 ? 2 : 0, 2, { mean, n: 2 }])
      .sort(),
  );
  // The end-of-run table: the judge column, each agent's mean over its 2 verdicts.
  const table = shared.output.slice(shared.output.indexOf("jest-m3: per test and agent"));
  expect(table.split("\n")[1]).toContain("judge mean (n)");
  expect(table.match(/ 0\.9 \(2\) /g)).toHaveLength(2);
  expect(table.match(/ 0\.1 \(2\) /g)).toHaveLength(2);
}, 60_000);
