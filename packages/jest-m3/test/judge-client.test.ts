/**
 * Core's judge client against the real scripted model on loopback, in each of its four
 * dialects: what the judge was sent (the scripted model's journal), the verdict read back,
 * the threshold, and every way a judge can fail to give a verdict (never a pass).
 */
import {
  askJudge,
  checkJudgeSelection,
  InvalidJudge,
  JUDGE_INSTRUCTIONS,
  judgeEvidence,
  judgePrompt,
  JudgeFailed,
  resolveJudge,
  verdictsOf,
} from "@jest-m3/core";
import { PROVIDER_DIALECTS } from "@jest-m3/scripted-model";
import { JUDGE_FAULTS, judgedTurns } from "./support/judge-script";

const CRITERIA = "the reply states the quoted amount";

const j = judgedTurns();

/** The JudgeFailed a judge call throws; fails the test when it gives a verdict. */
async function failed(call: Promise<unknown>): Promise<JudgeFailed> {
  const error = await call.then(
    (verdict) => new Error(`the judge gave a verdict: ${JSON.stringify(verdict)}`),
    (e: unknown) => e,
  );
  if (!(error instanceof JudgeFailed)) throw error;
  return error;
}

const judgeIn = (dialect: (typeof PROVIDER_DIALECTS)[number], more = {}) =>
  resolveJudge(
    checkJudgeSelection({ provider: j.model.providerFor(dialect), model: "judge-1", ...more }),
  );

test.each(PROVIDER_DIALECTS)(
  "%s: the judge is sent the criteria and the evidence, forced to call verdict, and its verdict decides",
  async (dialect) => {
    const before = j.model.journal.entries.length;
    const pass = await askJudge(j.right, CRITERIA, { judge: judgeIn(dialect) });
    const fail = await askJudge(j.wrong, CRITERIA, { judge: judgeIn(dialect) });

    expect([pass.passed, pass.pass, pass.score, pass.reasoning]).toEqual([
      true,
      true,
      1,
      "The reply states the quoted amount 9.",
    ]);
    expect([fail.passed, fail.pass, fail.score, fail.reasoning]).toEqual([
      false,
      false,
      0,
      "The reply does not state the quoted amount 15.5.",
    ]);
    expect(pass.judge).toEqual({
      provider: "scripted",
      baseUrl: j.model.providerFor(dialect).baseUrl,
      wireApi: dialect,
      model: "judge-1",
      credentialEnv: null,
    });
    expect(pass.subject).toEqual({ executionId: expect.any(String), turn: 1 });
    expect(pass.latencyMs).toBeGreaterThanOrEqual(0);

    // The journal is what the judge was really sent: one request per verdict, in this
    // dialect, answered by the judge rule with a verdict call.
    const sent = j.model.journal.entries.slice(before);
    expect(sent.map((entry) => [entry.dialect, entry.decision.kind])).toEqual([
      [dialect, "call"],
      [dialect, "call"],
    ]);
    const first = sent[0]!;
    expect(first.conversation?.user).toBe(pass.prompt.user);
    expect(first.conversation?.user).toContain(`## Criteria\n\n${CRITERIA}`);
    expect(first.conversation?.user).toContain(
      'arguments: {"weight_kg":2,"zone":"local"}\n   result: {"content":[{"text":"Quote calculated","type":"text"}],"structuredContent":{"amount":9,"currency":"USD"}}',
    );
    expect(first.conversation?.user).toContain("Reply:\n  The quote is 9 USD.");
    expect(JSON.stringify(first.body)).toContain(forcedChoice[dialect]);
    expect(first.decision).toMatchObject({
      kind: "call",
      rule: 'rule "judge"',
      calls: [{ name: "verdict", arguments: { pass: true, score: 1 } }],
    });
  },
);

const forcedChoice = {
  responses: '"tool_choice":{"type":"function","name":"verdict"}',
  "chat-completions": '"tool_choice":{"type":"function","function":{"name":"verdict"}}',
  "anthropic-messages": '"tool_choice":{"type":"tool","name":"verdict"}',
  gemini: '"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["verdict"]}',
};

test("a threshold holds the score: a judge's pass with a score under it fails", async () => {
  const judge = judgeIn("chat-completions");
  const middling = `${CRITERIA}, ${JUDGE_FAULTS.middling}`;
  const under = await askJudge(j.right, middling, { judge, threshold: 0.8 });
  const over = await askJudge(j.right, middling, { judge, threshold: 0.5 });
  expect([under.pass, under.score, under.threshold, under.passed]).toEqual([true, 0.6, 0.8, false]);
  expect([over.passed, over.threshold]).toEqual([true, 0.5]);
});

test.each(PROVIDER_DIALECTS)(
  "%s: a judge that answers without the verdict call is a judge error, not a pass",
  async (dialect) => {
    const error = await failed(
      askJudge(j.right, `${CRITERIA}; ${JUDGE_FAULTS.text}`, { judge: judgeIn(dialect) }),
    );
    expect([error.reason, error.code]).toEqual(["no_verdict", "M3_JUDGE_FAILED"]);
    expect(error.message).toContain(
      `did not call the verdict tool; it answered text instead: "I think it passes."`,
    );
    expect(error.evidence.turns[0]?.reply).toBe("The quote is 9 USD.");
  },
);

test("a 500, a hang and a bad verdict fail with what happened", async () => {
  const http = await failed(
    askJudge(j.right, JUDGE_FAULTS.http500, {
      judge: judgeIn("anthropic-messages"),
    }),
  );
  expect([http.reason, http.status]).toEqual(["http", 500]);
  expect(http.message).toMatch(/answered HTTP 500: .*Scripted HTTP 500 error/);

  const started = Date.now();
  const hang = await failed(
    askJudge(j.right, JUDGE_FAULTS.hang, {
      judge: judgeIn("gemini", { timeoutMs: 500 }),
    }),
  );
  expect(hang.reason).toBe("timeout");
  expect(hang.message).toContain("gave no answer within 500 ms");
  expect(Date.now() - started).toBeLessThan(10_000);

  const bad = await failed(
    askJudge(j.right, JUDGE_FAULTS.badScore, {
      judge: judgeIn("responses"),
    }),
  );
  expect(bad.reason).toBe("bad_verdict");
  expect(bad.message).toContain('"score" must be a number from 0 to 1, got number 7.');
});

test("a credential is read from credentialEnv, sent, and never written", async () => {
  const secret = "sk-judge-secret-0123456789";
  const env = { JUDGE_KEY: secret };
  for (const dialect of PROVIDER_DIALECTS) {
    const before = j.model.journal.entries.length;
    const verdict = await askJudge(j.right, CRITERIA, {
      judge: resolveJudge(
        checkJudgeSelection({
          provider: j.model.providerFor(dialect),
          model: "judge-1",
          credentialEnv: "JUDGE_KEY",
        }),
        { env },
      ),
      env,
    });
    const entry = j.model.journal.entries[before]!;
    const header = {
      responses: "authorization",
      "chat-completions": "authorization",
      "anthropic-messages": "x-api-key",
      gemini: "x-goog-api-key",
    }[dialect];
    expect(entry.headers[header]).toMatch(/<redacted>$/);
    expect(JSON.stringify(entry)).not.toContain(secret);
    expect(JSON.stringify(verdict)).not.toContain(secret);
    expect(verdict.judge.credentialEnv).toBe("JUDGE_KEY");
  }
  expect(JSON.stringify(j.model.journal.toJSON())).not.toContain(secret);
  expect(() =>
    resolveJudge(
      checkJudgeSelection({
        provider: j.model.providerFor("responses"),
        model: "j",
        credentialEnv: "JUDGE_KEY",
      }),
      { env: {} },
    ),
  ).toThrow(
    'Invalid judge: "judge.credentialEnv" names JUDGE_KEY, which is not set: set it to the judge provider\'s API key',
  );
});

test("bad input is refused before any request, naming the field", async () => {
  const before = j.model.journal.entries.length;
  const judge = judgeIn("responses");
  await expect(askJudge(j.right, "  ", { judge })).rejects.toThrow(InvalidJudge);
  await expect(askJudge(j.right, "  ", { judge })).rejects.toThrow(
    'Invalid judge: "criteria" must be a non-empty text',
  );
  await expect(askJudge(j.right, CRITERIA, { judge, threshold: 1.5 })).rejects.toThrow(
    'Invalid judge: "threshold" must be a minimum score from 0 to 1 (e.g. 0.8), got number 1.5.',
  );
  expect(() => checkJudgeSelection({ provider: "run", model: "j", temperature: 0 })).toThrow(
    'Invalid judge: "judge.temperature" is not a judge field; the fields are provider, model, credentialEnv, timeoutMs.',
  );
  expect(() =>
    checkJudgeSelection({
      provider: { name: "x", baseUrl: "http://127.0.0.1:1", wireApi: "bedrock" },
      model: "j",
    }),
  ).toThrow('"judge.provider.wireApi" must be a dialect');
  expect(() => resolveJudge(checkJudgeSelection({ provider: "run", model: "j" }))).toThrow(
    'is "run", but this run has no provider',
  );
  expect(j.model.journal.entries.length).toBe(before);
});

test("verdicts are kept with what they judged", async () => {
  const judge = judgeIn("responses");
  const verdict = await askJudge(j.wrong, CRITERIA, { judge });
  expect(verdictsOf(j.wrong)).toContain(verdict);
  expect(verdictsOf(j.right)).not.toContain(verdict);
});

test("the prompt holds the criteria, each turn's prompt, tool calls with arguments and results, and the reply", () => {
  const prompt = judgePrompt(CRITERIA, judgeEvidence(j.right));
  expect(prompt.system).toBe(JUDGE_INSTRUCTIONS);
  expect(prompt).toMatchSnapshot();
});
