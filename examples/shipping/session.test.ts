// The seed: two turns in one conversation with a real agent, each turn with its own
// evidence, the same test on Codex and on Claude Code. Offline by default (m3.config.json
// starts the scripted model, which answers each agent in its own provider dialect); with
// M3_PROVIDER=live and the M3_DOCS_*_MODEL variables set, it runs against real models (set
// M3_JUDGE too, docs/judges.md: offline, the run's scripted model is the judge).
import { join } from "node:path";
import {
  MCPTestKit,
  ExecutionOutcome,
  TurnOutcome,
  evaluators,
  expect,
  type StdioServer,
} from "jest-m3";

const agents = [
  { harness: "codex", model: process.env.M3_DOCS_CODEX_MODEL! },
  { harness: "claude-code", model: process.env.M3_DOCS_CLAUDE_MODEL! },
];

test.each(agents)("two turns share one session ($harness)", async ({ harness, model }) => {
  const server: StdioServer = {
    name: "shipping",
    command: process.execPath,
    args: [join(__dirname, "shipping-server.mjs")],
    cwd: __dirname,
  };
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness, models: [model] }]);
  const session = agent.session({ server, tools: ["shipping:shipping_quote"], timeout: 120_000 });
  let first, second;
  {
    await using open = await session.open();
    first = await open.send("Call shipping_quote once for weight_kg 2 in zone local.", {
      timeout: 120_000,
    });
    second = await open.send("Call shipping_quote once for weight_kg 3 in zone regional.", {
      timeout: 120_000,
    });
  }
  const result = session.result; // final only after the session closed

  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED); // prints result.error on failure
  expect(first.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(second.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(first.snapshot.sessionId).toBe(second.snapshot.sessionId);
  expect(result).toHaveToolCall("shipping_quote", {
    turn: first,
    server: "shipping",
    status: "success",
    count: 1,
  });
  expect(result)
    .toHaveToolCall("shipping_quote")
    .inTurn(second)
    .onServer("shipping")
    .withStatus("success")
    .times(1);
  expect(second).toHaveTextContaining("15.5"); // 5 + 3 kg × 3.5, the second quote's amount

  // The assertion the seed page asks for: the second reply uses the amount the tool
  // returned. Checked without a model, against the result the server sent...
  const [quote] = second.toolCalls;
  const amount = (quote?.result as { structuredContent?: { amount?: number } }).structuredContent
    ?.amount;
  expect(evaluators.contains(second, String(amount))).toMatchObject({ pass: true, score: 1 });
  // ...and judged (offline, the run's scripted model is the judge; docs/judges.md).
  await expect(second).toPassJudge("the reply states the amount the shipping quote returned", {
    threshold: 0.8,
  });
  await expect(first).toPassJudge("the reply states the amount the shipping quote returned");
  // The verdicts are in the session's trace, each beside the turn it judged.
  expect(result.trace.verdicts?.map((verdict) => [verdict.turnId, verdict.score])).toEqual([
    [second.snapshot.turnId, 0.9],
    [first.snapshot.turnId, 0.9],
  ]);
});
