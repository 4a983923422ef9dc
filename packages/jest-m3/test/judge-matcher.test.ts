/**
 * `toPassJudge` on turns and sessions of real MCP calls (the test harness calls the real
 * shipping server), judged by the real scripted model: pass, fail with the verdict and the
 * evidence in the message, `.not`, the threshold, the judge option, the run's provider as
 * the default judge, and judge errors that fail under `.not` too.
 */
import { expect, verdictsOf } from "jest-m3";
import { defaultRuntime, singleProvider } from "@jest-m3/core/runner";
import { readRecords } from "../dist/shared/run-ledger";
import { runDir } from "../dist/shared/hand-off";
import { JUDGE_FAULTS, judgedTurns } from "./support/judge-script";

const CRITERIA = "the reply states the quoted amount";

const j = judgedTurns();
const judge = () => ({ provider: j.model.providerFor("chat-completions"), model: "judge-1" });

/** The message of a failed async assertion, without colours. */
async function failure(assertion: Promise<unknown>): Promise<string> {
  try {
    await assertion;
  } catch (error) {
    // eslint-disable-next-line no-control-regex
    return (error as Error).message.replace(/\u001b\[[0-9;]*m/g, "");
  }
  throw new Error("the assertion passed");
}

test("a turn that meets the criteria passes; one that does not fails with the verdict and what the judge saw", async () => {
  await expect(j.right).toPassJudge(CRITERIA, { judge: judge() });
  const message = await failure(expect(j.wrong).toPassJudge(CRITERIA, { judge: judge() }));
  expect(message).toContain("Expected the turn 2 to pass the judge.");
  expect(message).toContain(`Criteria: "${CRITERIA}"`);
  expect(message).toContain('Verdict:  "fail", score 0');
  expect(message).toContain("Reasoning: The reply does not state the quoted amount 15.5.");
  expect(message).toContain("Judge: judge-1 at scripted (chat-completions)");
  expect(message).toContain("What the judge was shown:\n  ## Criteria");
  expect(message).toContain('   arguments: {"weight_kg":3,"zone":"regional"}');
  expect(message).toContain("  Reply:\n    Your parcel ships soon.");
});

test(".not passes on a failing verdict and fails on a passing one", async () => {
  await expect(j.wrong).not.toPassJudge(CRITERIA, { judge: judge() });
  const message = await failure(expect(j.right).not.toPassJudge(CRITERIA, { judge: judge() }));
  expect(message).toContain("Expected the turn 1 not to pass the judge.");
  expect(message).toContain('Verdict:  "pass", score 1');
});

test("a session is judged on its whole conversation", async () => {
  const message = await failure(expect(j.result).toPassJudge(CRITERIA, { judge: judge() }));
  expect(message).toContain("Expected the session to pass the judge.");
  expect(message).toContain("## Evidence (the whole session, 2 turns)");
  expect(message).toContain("Reasoning: The reply does not state the quoted amount 15.5.");
  expect(verdictsOf(j.result).length).toBeGreaterThan(0);
});

test("threshold: a judge's pass with a score under it fails", async () => {
  const middling = `${CRITERIA}, ${JUDGE_FAULTS.middling}`;
  await expect(j.right).toPassJudge(middling, { judge: judge(), threshold: 0.5 });
  const message = await failure(
    expect(j.right).toPassJudge(middling, { judge: judge(), threshold: 0.8 }),
  );
  expect(message).toContain('Verdict:  "pass", score 0.6 (threshold 0.8)');
});

test("a judge without the verdict call, or with an error, fails under .not too", async () => {
  for (const assertion of [
    expect(j.right).toPassJudge(JUDGE_FAULTS.text, { judge: judge() }),
    expect(j.right).not.toPassJudge(JUDGE_FAULTS.text, { judge: judge() }),
  ]) {
    const message = await failure(assertion);
    expect(message).toContain("The judge gave no verdict (no_verdict)");
    expect(message).toContain("A reply without the verdict call is a judge error, not a pass.");
  }
  const message = await failure(
    expect(j.right).not.toPassJudge(JUDGE_FAULTS.http500, { judge: judge() }),
  );
  expect(message).toContain("The judge gave no verdict (http)");
});

test("without a judge option the run's provider judges; without one, a clear error", async () => {
  const runtime = defaultRuntime();
  const before = runtime.provider;
  try {
    runtime.setProvider({
      source: singleProvider(j.model.providerFor("anthropic-messages")),
      label: "this test",
    });
    const sent = j.model.journal.entries.length;
    await expect(j.right).toPassJudge(CRITERIA);
    expect(j.model.journal.entries.slice(sent).map((entry) => [entry.dialect, entry.body])).toEqual(
      [["anthropic-messages", expect.objectContaining({ model: "m3-judge" })]],
    );
    runtime.setProvider(undefined);
    expect(await failure(expect(j.right).toPassJudge(CRITERIA))).toContain(
      'is "run", but this run has no provider',
    );
  } finally {
    runtime.setProvider(before);
  }
});

test("bad input is a usage error, before any request", async () => {
  const sent = j.model.journal.entries.length;
  expect(await failure(expect(j.right).toPassJudge("", { judge: judge() }))).toContain(
    'Matcher error: Invalid judge: "criteria" must be a non-empty text',
  );
  expect(
    await failure(expect(j.right).toPassJudge(CRITERIA, { judge: judge(), threshold: -1 })),
  ).toContain('"threshold" must be a minimum score from 0 to 1');
  expect(
    await failure(expect(j.right).toPassJudge(CRITERIA, { judge: judge(), treshold: 1 } as never)),
  ).toContain('unknown option "treshold"; the options are threshold, judge');
  expect(
    await failure(expect(j.right).toPassJudge(CRITERIA, { judge: { model: "x" } } as never)),
  ).toContain('"judge.provider" must be { name, baseUrl, wireApi } or "run"');
  expect(await failure(expect({ text: "hi" }).toPassJudge(CRITERIA, { judge: judge() }))).toContain(
    "received value must be a TurnResult (from send()) or an ExecutionResult (session.result)",
  );
  expect(j.model.journal.entries.length).toBe(sent);
});

test("every verdict and every judge failure is written to the run's verdicts ledger", async () => {
  const dir = runDir();
  expect(dir).toBeDefined();
  const mine = () =>
    readRecords<Record<string, unknown>>(dir!, "verdicts", process.pid).filter(
      (entry) => entry.testName === expect.getState().currentTestName,
    );
  await expect(j.wrong).not.toPassJudge(CRITERIA, { judge: judge(), threshold: 0.5 });
  // (A scripted fault such as the 500 is served once per conversation: words instead of
  // the call are answered every time.)
  await expect(j.right)
    .toPassJudge(JUDGE_FAULTS.text, { judge: judge() })
    .catch(() => undefined);
  const [verdict, failed] = mine();
  expect(verdict).toMatchObject({
    isNot: true,
    criteria: CRITERIA,
    passed: false,
    pass: false,
    score: 0,
    threshold: 0.5,
    reasoning: "The reply does not state the quoted amount 15.5.",
    judge: { provider: "scripted", wireApi: "chat-completions", model: "judge-1" },
    subject: { turn: 2 },
    trial: null,
  });
  expect(verdict).not.toHaveProperty("evidence");
  expect(failed).toMatchObject({
    isNot: false,
    criteria: JUDGE_FAULTS.text,
    error: { reason: "no_verdict", status: 200 },
  });
});

test("in expect.softly, a failed judgement is one of the grouped failures", async () => {
  const message = await failure(
    expect.softly(async () => {
      await expect(j.wrong).toPassJudge(CRITERIA, { judge: judge() });
      expect(j.wrong).toHaveTextContaining("15.5");
    }),
  );
  expect(message).toContain("2 grouped assertions failed");
  expect(message).toContain("Reasoning: The reply does not state the quoted amount 15.5.");
});
