// The examples of docs/judges.md, verbatim (packages/jest-m3/test/docs.test.ts checks it).
import { join } from "node:path";
import {
  MCPTestKit,
  ExecutionOutcome,
  evaluators,
  expect,
  trials,
  verdictsOf,
  type StdioServer,
} from "jest-m3";
import { startScriptedModel, type StepContext } from "@jest-m3/scripted-model";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs")],
};

/** The scripted judge: pass when the reply holds every amount a tool returned. */
function amountVerdict(context: StepContext) {
  const amounts = [...context.user.matchAll(/"amount":([\d.]+)/g)].map((match) => match[1]!);
  const reply = context.user.slice(context.user.lastIndexOf("Reply:"));
  const pass = amounts.length > 0 && amounts.every((amount) => reply.includes(amount));
  return {
    pass,
    score: pass ? 1 : 0,
    reasoning: pass ? "The reply states the amount." : "The reply leaves the amount out.",
  };
}

test("the reply states the amount the tool returned", async () => {
  await using model = await startScriptedModel({
    rules: [
      // The judge's request: its prompt starts with "## Criteria".
      {
        name: "judge",
        when: { user: "## Criteria" },
        steps: [{ call: "judge:verdict", args: amountVerdict }],
      },
      // The agent's requests.
      {
        name: "quote",
        when: { user: /weight_kg (\d+) in zone (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply: "The quote is {{result.amount}} {{result.currency}}." },
        ],
      },
      {
        name: "vague",
        when: { user: "roughly" },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 3, zone: "regional" } },
          { reply: "Regional shipping is affordable." },
        ],
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = agent!.session({ server, tools: ["shipping:shipping_quote"], timeout: 60_000 });
  let first, second;
  {
    await using open = await session.open();
    first = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
    second = await open.send("What does 3 kg to regional cost, roughly?");
  }

  expect(session.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  const judge = { provider: model.providerFor("chat-completions"), model: "judge" };
  await expect(first).toPassJudge("the reply states the quoted amount", { judge, threshold: 0.8 });
  await expect(second).not.toPassJudge("the reply states the quoted amount", { judge });

  const [verdict] = verdictsOf(first);
  expect(verdict).toMatchObject({
    pass: true,
    score: 1,
    criteria: "the reply states the quoted amount",
  });
});

test("the reply and the calls, checked without a model", async () => {
  await using model = await startScriptedModel({
    rules: [
      {
        when: { user: /weight_kg (\d+) in zone (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply: "The quote is {{result.amount}} {{result.currency}}." },
        ],
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = agent!.session({ server, tools: ["shipping:shipping_quote"], timeout: 60_000 });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
  }

  expect(evaluators.contains(turn, "9 USD")).toEqual({
    evaluator: "contains",
    pass: true,
    score: 1,
    reasoning: 'The reply contains "9 USD".',
  });
  expect(evaluators.regex(turn, /\b\d+ USD\b/).pass).toBe(true);
  const f1 = evaluators.toolCallF1(session.result, ["shipping_quote", "shipping_quote"]);
  expect([f1.precision, f1.recall, f1.score, f1.pass]).toEqual([1, 0.5, 0.667, false]);
  expect(f1.reasoning).toBe("F1 0.667 (precision 1, recall 0.5); missing: shipping_quote.");
});

test("two trials, each judged: a pass rate and a mean judge score", async () => {
  await using model = await startScriptedModel({
    rules: [
      {
        name: "judge",
        when: { user: "## Criteria" },
        steps: [{ call: "judge:verdict", args: amountVerdict }],
      },
      {
        name: "quote",
        when: { user: /weight_kg (\d+) in zone (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply: "The quote is {{result.amount}} {{result.currency}}." },
        ],
      },
    ],
  });
  const judge = { provider: model.providerFor("chat-completions"), model: "judge" };

  const summary = await trials(
    2,
    async () => {
      await using kit = new MCPTestKit({ env: {} });
      const [agent] = kit.agents([
        { harness: "codex", models: ["scripted"], provider: model.provider },
      ]);
      const session = agent!.session({
        server,
        tools: ["shipping:shipping_quote"],
        timeout: 60_000,
      });
      let turn;
      {
        await using open = await session.open();
        turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
      }
      await expect(turn).toPassJudge("the reply states the quoted amount", { judge });
      // The verdict is in the session's trace, beside the turn it judged.
      expect(session.result.trace.verdicts).toMatchObject([
        { turnId: turn.snapshot.turnId, turn: 1, score: 1, pass: true },
      ]);
    },
    { minRate: 0.5, minMeanScore: 0.8 },
  );

  expect([summary.passed, summary.meanScore, summary.scored]).toEqual([2, 1, 2]);
  expect(summary.verdicts.map((trial) => trial.score)).toEqual([1, 1]);
});
