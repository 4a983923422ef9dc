// Judges inside trials, and verdicts in the session trace, on a real Codex session (the real
// binary, the scripted model on loopback as its model and as the judge, the shipping server
// making the real call). The judge scores what the criteria ask of it ("(score 0.3)"), so
// each trial's score is known; the scripted model's journal counts the judge requests that
// really went out. trials({ minMeanScore }) passes at the mean and fails above it, a trial
// without a verdict scores 0, a .not verdict does not count, a bad minMeanScore is refused
// before any trial or judge request, and every verdict is in the trace beside its turn with
// the judge's usage, a planted secret only by name.
import {
  MCPTestKit,
  TrialsFailed,
  expect,
  trials,
  type ExecutionResult,
  type TurnResult,
} from "jest-m3";
import { defaultRuntime } from "@jest-m3/core/runner";
import { startScriptedModel, type ScriptedModel, type StepContext } from "@jest-m3/scripted-model";
import { seedRule, shipping as server } from "@jest-m3/test-support";

const SECRET = "planted-trial-judge-secret-5d1e";

/** The scripted judge: the score the criteria name, echoing a secret it was shown. */
function scored(context: StepContext) {
  const score = Number(/\(score ([\d.]+)\)/.exec(context.user)?.[1] ?? 0);
  return {
    pass: score >= 0.5,
    score,
    reasoning: `Scored ${score}${context.user.includes(SECRET) ? ` (saw ${SECRET})` : ""}.`,
  };
}

let model: ScriptedModel;
let kit: MCPTestKit;
let turn: TurnResult;
let sessionResult: () => ExecutionResult;
const judge = () => ({ provider: model.providerFor("chat-completions"), model: "judge" });
const judgeRequests = () =>
  model.journal.entries.filter((entry) => entry.conversation?.user?.startsWith("## Criteria"))
    .length;
const judgeTurn = (score: number, not = false) =>
  not
    ? expect(turn).not.toPassJudge(`the reply states the amount (score ${score})`, {
        judge: judge(),
      })
    : expect(turn).toPassJudge(`the reply states the amount (score ${score})`, {
        judge: judge(),
      });

beforeAll(async () => {
  defaultRuntime().registerSecret("TRIAL_JUDGE_SECRET", SECRET);
  model = await startScriptedModel({
    rules: [
      {
        name: "judge",
        when: { user: "## Criteria" },
        steps: [
          { call: "judge:verdict", args: scored, usage: { inputTokens: 120, outputTokens: 30 } },
        ],
      },
      seedRule(),
    ],
  });
  kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = agent!.session({ server, tools: ["shipping:shipping_quote"], timeout: 90_000 });
  {
    await using open = await session.open();
    turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
  }
  expect(turn.response?.text).toBe("The quote is 9 USD.");
  sessionResult = () => session.result;
}, 120_000);

afterAll(async () => {
  await kit?.close();
  await model?.close();
});

test("a bad minMeanScore is refused before any trial runs and before any judge request", async () => {
  let ran = 0;
  const body = async () => {
    ran++;
    await judgeTurn(0.9);
  };
  const before = judgeRequests();
  const rule =
    "minMeanScore must be a mean judge score above 0 and at most 1, e.g. 0.7 (minMeanScore: 0 would pass with every judge scoring 0)";
  await expect(trials(2, body, { minMeanScore: 0 })).rejects.toThrow(
    `trials(): ${rule}, got number 0.`,
  );
  await expect(trials(2, body, { minMeanScore: 1.5 })).rejects.toThrow(
    `trials(): ${rule}, got number 1.5.`,
  );
  await expect(trials(2, body, { minMeanScore: "0.7" as never })).rejects.toThrow(
    `trials(): ${rule}, got "0.7".`,
  );
  await expect(trials(2, body, { minMeanscore: 0.7 } as never)).rejects.toThrow(
    'Did you mean "minMeanScore"?',
  );
  expect([ran, judgeRequests()]).toEqual([0, before]);
});

test("the mean judge score of the trials: met at 0.7, not met at 0.75, each trial's score in the failure", async () => {
  const scores = [0.9, 0.3, 0.9];
  const before = judgeRequests();
  const summary = await trials(3, (trial) => judgeTurn(scores[trial - 1]!), {
    minRate: 0.5,
    minMeanScore: 0.7,
  });
  // Trial 2's judge said fail: 2 of 3 passed, and its 0.3 still counts in the mean.
  expect(summary).toMatchObject({ trials: 3, passed: 2, meanScore: 0.7, scored: 3 });
  expect(summary.verdicts.map((v) => [v.passed, v.score, v.judged])).toEqual([
    [true, 0.9, 1],
    [false, 0.3, 1],
    [true, 0.9, 1],
  ]);

  const failed = await trials(3, (trial) => judgeTurn(scores[trial - 1]!), {
    minRate: 0.5,
    minMeanScore: 0.75,
  }).then(
    () => null,
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(TrialsFailed);
  const message = (failed as TrialsFailed).message;
  expect(message.split("\n")[0]).toBe(
    "2 of 3 trials passed, mean judge score 0.7; the test needs a pass rate of at least 0.5 and a mean judge score of at least 0.75.",
  );
  expect(message).toMatch(/ {2}trial 2: FAILED \(\d+ ms, judge score 0\.3\)/);
  expect(message).toMatch(/ {2}trial 3: passed \(\d+ ms, judge score 0\.9\)/);
  // Every score counted is a judge request that went out: 3 per call of trials().
  expect(judgeRequests() - before).toBe(6);
}, 60_000);

test("a trial without a verdict scores 0, a .not verdict does not count, a trial's verdicts are averaged", async () => {
  const body = async (trial: number) => {
    if (trial === 2) throw new Error("the agent failed before its judge");
    await judgeTurn(0.1, true); // .not: the low score is what it wants; not counted
    await judgeTurn(0.8);
    await judgeTurn(1);
  };
  const summary = await trials(2, body, { atLeast: 1, minMeanScore: 0.45 });
  expect(summary.verdicts.map((v) => [v.score, v.judged])).toEqual([
    [0.9, 2],
    [null, 0],
  ]);
  expect([summary.meanScore, summary.scored]).toEqual([0.45, 1]);
  const failed = await trials(2, body, { atLeast: 1, minMeanScore: 0.5 }).catch(
    (error: Error) => error.message,
  );
  expect(failed).toMatch(/^1 of 2 trials passed, mean judge score 0\.45; .* at least 0\.5\./);
  expect(failed).toMatch(/trial 2: FAILED \(\d+ ms, no judge verdict\)/);
  // No verdict in any trial: the requirement says so instead of passing.
  await expect(trials(1, async () => undefined, { minMeanScore: 0.5 })).rejects.toThrow(
    "1 of 1 trials passed; the test needs at least 1 of 1 and a mean judge score of at least 0.5 (no trial got a judge verdict).",
  );
}, 60_000);

test("every verdict is in the session's trace beside its turn: criteria, judge, score, latency, the judge's usage; a secret only by name", async () => {
  const before = sessionResult().trace.verdicts?.length ?? 0;
  await expect(turn).toPassJudge(`the reply states the amount, not ${SECRET} (score 0.9)`, {
    judge: judge(),
    threshold: 0.8,
  });
  const verdicts = sessionResult().trace.verdicts ?? [];
  // One record per judge request: the journal's count is the trace's.
  expect(verdicts).toHaveLength(judgeRequests());
  expect(verdicts.length).toBe(before + 1);
  const last = verdicts.at(-1)!;
  expect(last).toEqual({
    turnId: turn.snapshot.turnId,
    turn: 1,
    criteria: "the reply states the amount, not [redacted: TRIAL_JUDGE_SECRET] (score 0.9)",
    judge: {
      provider: "scripted",
      baseUrl: model.providerFor("chat-completions").baseUrl,
      wireApi: "chat-completions",
      model: "judge",
      credentialEnv: null,
    },
    pass: true,
    score: 0.9,
    passed: true,
    threshold: 0.8,
    reasoning: "Scored 0.9 (saw [redacted: TRIAL_JUDGE_SECRET]).",
    latencyMs: expect.any(Number),
    usage: { inputTokens: 120, outputTokens: 30 },
    at: expect.any(Number),
  });
  expect(JSON.stringify(sessionResult().trace)).not.toContain(SECRET);
  // A failed verdict is recorded too, with the judge's own pass and the assertion's outcome.
  expect(verdicts.filter((v) => !v.passed).map((v) => v.score)).toEqual(
    expect.arrayContaining([0.3, 0.1]),
  );
}, 60_000);
