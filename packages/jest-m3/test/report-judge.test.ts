// Judge verdicts through the whole reporting path, on real child Jest runs whose judge is
// the run's scripted model: the verdicts ledger the matcher wrote, report.json and the blob
// (and merge-reports of it), the HTML report in headless Chromium (each verdict on the turn
// or session it judged, markup in the judge's reasoning shown as text, nothing executed),
// the history, and `jest-m3 diff` on two runs whose judge gave different scores.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readRecords } from "../dist/shared/run-ledger";
import { runCli } from "./support/cli";
import { expectText, withChromium } from "./support/chromium";
import { verdictRule } from "./support/judge-script";
import {
  makeUserProject,
  QUOTED_RUN_SOURCE,
  removeTempDir,
  runJest,
  SHIPPING_SERVER,
} from "./support/user-project";

const MARKUP = '<img src=x class="m3-injected">';
const SCRIPT_TAG = "<script>window.m3Pwned = 1</script>";
/** A secret of the run's environment, which the judge echoes in its reasoning. */
const PLANTED_KEY = "planted-judge-key-4f2a91";

/** The scripted model's rules: the judge scores the amount criteria `amountScore`. */
function script(amountScore: number): string {
  return JSON.stringify({
    rules: [
      {
        name: "judge: no verdict",
        when: { user: "answer without a verdict" },
        steps: [{ reply: "I would rather not call any tool." }],
      },
      verdictRule(
        "judge: euros",
        "in euros",
        false,
        0.1,
        `USD, not euros ${MARKUP} ${SCRIPT_TAG} ${PLANTED_KEY}`,
      ),
      verdictRule("judge: session", "quotes once", true, 0.8, "One quote in the session."),
      verdictRule("judge: amount", "## Criteria", true, amountScore, `Scored ${amountScore}.`),
    ],
  });
}

const judgedTest = `
import { MCPTestKit, expect, trials } from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";

test("judged quote", async () => {
${QUOTED_RUN_SOURCE}
  for (let i = 0; i < 5; i += 1) await expect(turn).toPassJudge("the reply states the quoted amount");
  await expect(turn).not.toPassJudge("the reply states the amount in euros");
  await expect(result).toPassJudge("the session quotes once", { threshold: 0.5 });
  await expect(expect(turn).toPassJudge("answer without a verdict")).rejects.toThrow("no verdict");
});

test("judged in trials", async () => {
  await trials({ harness: "test", model: "m", version: "1.0.0", trials: 3, options: {}, label: "m", selection: { harness: "test", models: ["m"] } }, async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const result = await agent!.run("reply The quote is 9 USD.", { server: { name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] } });
    await expect(result.turns[0]!).toPassJudge("the trial reply states the quoted amount");
  }, { atLeast: 3 });
});
`;

interface JsonVerdict {
  test: { fullName: string };
  criteria: string;
  score?: number;
  passed?: boolean;
  pass?: boolean;
  threshold: number | null;
  reasoning?: string;
  isNot: boolean;
  trial: number | null;
  judge?: { model: string; wireApi: string };
  subject?: { executionId: string | null; turn: number | null };
  latencyMs?: number;
  error?: { reason: string; message: string };
}

let project: string | undefined;
afterAll(() => removeTempDir(project));

/** Run folders of the project, oldest first (a run id starts with its ISO time). */
function runFolders(): string[] {
  const runs = join(project!, ".m3", "runs");
  return readdirSync(runs)
    .filter((name) => !name.startsWith(".") && statSync(join(runs, name)).isDirectory())
    .sort()
    .map((name) => join(runs, name));
}

const cli = (...argv: string[]) => runCli(project!, ...argv);

test("verdicts: report.json, blob and merge, the page on the judged turn, history and diff of two runs", async () => {
  project = makeUserProject({
    "m3.config.json": JSON.stringify({ scriptedModel: { script: "model-script.json" } }),
    "model-script.json": script(0.9),
    "judged.test.ts": judgedTest,
  });
  const first = runJest(project, {
    timeoutMs: 150_000,
    env: { SHIPPING_API_KEY: PLANTED_KEY },
  });
  expect(first.output).toContain("2 passed");
  const [dir] = runFolders();

  // The echoed secret is in none of the reports: blob, report.json, report.html.
  for (const file of ["report.json", "report.html", "blob.json"]) {
    expect(readFileSync(join(dir!, file), "utf8")).not.toContain(PLANTED_KEY);
  }

  // Ground truth: the ledger the matcher appended to.
  const ledger = readRecords<{ criteria: string; score?: number }>(dir!, "verdicts");
  expect(ledger).toHaveLength(11);
  // The ledger itself holds the echoed key by name only, like the executions ledger.
  expect(JSON.stringify(ledger)).not.toContain(PLANTED_KEY);
  expect(JSON.stringify(ledger)).toContain("[redacted: SHIPPING_API_KEY]");

  const json = JSON.parse(readFileSync(join(dir!, "report.json"), "utf8")) as {
    sessions: { executionId: string }[];
    verdicts: JsonVerdict[];
  };
  const session = json.sessions.find(
    (s) => (s as { testName?: string }).testName === "judged quote",
  );
  expect(json.verdicts).toHaveLength(11);
  // In trials: one verdict per trial, numbered, each on its own trial's session.
  const inTrials = json.verdicts.filter((v) => v.test.fullName === "judged in trials");
  expect(inTrials.map((v) => [v.trial, v.score])).toEqual([
    [1, 0.9],
    [2, 0.9],
    [3, 0.9],
  ]);
  expect(new Set(inTrials.map((v) => v.subject!.executionId)).size).toBe(3);
  expect(inTrials.map((v) => v.subject!.executionId).sort()).toEqual(
    json.sessions
      .filter((s) => (s as { testName?: string }).testName === "judged in trials")
      .map((s) => s.executionId)
      .sort(),
  );
  const amount = json.verdicts.filter((v) => v.criteria === "the reply states the quoted amount");
  expect(amount).toHaveLength(5);
  expect(amount[0]).toMatchObject({
    test: { fullName: "judged quote" },
    score: 0.9,
    passed: true,
    pass: true,
    threshold: null,
    reasoning: "Scored 0.9.",
    isNot: false,
    trial: null,
    judge: { model: "m3-judge", wireApi: "responses" },
    subject: { executionId: session!.executionId, turn: 1 },
  });
  expect(amount[0]!.latencyMs).toEqual(expect.any(Number));
  expect(json.verdicts.find((v) => v.criteria === "the session quotes once")).toMatchObject({
    score: 0.8,
    threshold: 0.5,
    subject: { executionId: session!.executionId, turn: null },
  });
  expect(json.verdicts.find((v) => v.isNot)).toMatchObject({ score: 0.1, passed: false });
  const failed = json.verdicts.find((v) => v.error);
  expect(failed).toMatchObject({ criteria: "answer without a verdict" });
  expect(failed!.score).toBeUndefined();

  // The blob carries them, and a merge of it reports them again.
  const blob = JSON.parse(readFileSync(join(dir!, "blob.json"), "utf8")) as {
    verdicts: unknown[];
  };
  expect(blob.verdicts).toHaveLength(11);
  const merged = await cli("merge-reports", "--no-history", dir!);
  expect(merged.code).toBe(0);
  const mergedDir = runFolders().find((folder) => folder !== dir)!;
  const mergedJson = JSON.parse(readFileSync(join(mergedDir, "report.json"), "utf8")) as {
    verdicts: JsonVerdict[];
  };
  expect(mergedJson.verdicts.map((v) => [v.criteria, v.score ?? null])).toEqual(
    json.verdicts.map((v) => [v.criteria, v.score ?? null]),
  );

  // The page: the verdicts on the turn and the session they judged, markup as text.
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(join(dir!, "report.html")).href);
    await page.locator(".row", { hasText: "judged quote" }).first().click();
    await expectText(page, "#detail h2", "passedjudged quote");
    const turn = page.locator("#detail .turn").first();
    expect(await turn.locator(".verdict").count()).toBe(6);
    expect(await turn.locator(".verdict.j-pass .score").first().textContent()).toBe("0.9");
    const euros = turn.locator(".verdict.j-fail");
    expect(await euros.locator(".reasoning").textContent()).toBe(
      `USD, not euros ${MARKUP} ${SCRIPT_TAG} [redacted: SHIPPING_API_KEY]`,
    );
    expect(await euros.textContent()).toContain("model m3-judge");
    expect(await page.locator("#detail .verdict.j-error").textContent()).toContain(
      "answer without a verdict",
    );
    // The session verdict sits on the session, not on a turn.
    const onSession = page.locator("#detail .session > .verdict");
    expect(await onSession.count()).toBe(1);
    expect(await onSession.textContent()).toContain("threshold 0.5");
    expect(await page.locator("img.m3-injected").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { m3Pwned?: number }).m3Pwned)).toBeUndefined();
    // The search matches a judge's reasoning (in no prompt, reply or call).
    await page.fill("#f-search", "not euros");
    await expectText(page, "#count", "1 of 2 tests");
    await page.fill("#f-search", "scored 0.7");
    await expectText(page, "#count", "0 of 2 tests");
    expect(errors).toEqual([]);
  });

  // A second run whose judge scores the amount 0.3: the diff names the fall and its method.
  writeFileSync(join(project, "model-script.json"), script(0.3));
  const second = runJest(project, { timeoutMs: 150_000 });
  expect(second.output).toContain("2 passed");
  const diff = await cli("diff");
  expect(diff.out).toContain(
    "Judge scores (4): Mann-Whitney U (two-sided) on the judge scores, Holm-corrected; the median (p50) compared, higher is better",
  );
  expect(diff.out).toMatch(
    /regressed {2}median 0\.9 → 0\.3 \(5 vs 5 verdicts; p [^)]*\) {2}judged quote · test · m · criteria "the reply states the quoted amount"/,
  );
  expect(diff.out).toMatch(/unchanged {2}median 0\.8 → 0\.8 .*"the session quotes once"/);
  // Three trials a side: the fall is named, but three verdicts cannot tell it from chance.
  expect(diff.out).toMatch(
    /undecided {2}median 0\.9 → 0\.3 \(3 vs 3 verdicts; .*judged in trials · test · m · criteria "the trial reply/,
  );
  expect(diff.out).toContain(
    'regressed judge score "the reply states the quoted amount": judged quote (test · m) median 0.9 → 0.3',
  );
  expect(diff.code).toBe(1);
  const asJson = await cli("diff", "--json");
  const parsed = JSON.parse(asJson.out) as {
    scores: { verdict: string; method: string; adjustedPValue: number }[];
  };
  const fell = parsed.scores.find((row) => row.verdict === "regressed")!;
  expect(fell.adjustedPValue).toBeLessThan(0.05);
  expect(fell.method).toMatch(/^Mann-Whitney U/);
  expect(parsed.scores.map((row) => row.verdict).sort()).toEqual([
    "regressed",
    "unchanged",
    "unchanged",
    "undecided",
  ]);
}, 400_000);
