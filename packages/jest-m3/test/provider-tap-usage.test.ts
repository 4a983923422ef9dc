// Usage the script sets comes back exactly, per turn, on every agent: Codex (Responses),
// Claude Code (Anthropic Messages), Gemini CLI (Gemini API), OpenCode (Chat Completions)
// and Pi (Responses), each a real binary through the provider tap on the scripted model.
// Every step of a two-turn script sets its own numbers, and every other answer (side
// requests such as titles, tool searches) reports zero, so each turn's usage must be the sum
// of exactly that turn's two steps: a tap that lost a request, counted one twice, put one in
// the wrong turn or misread a dialect's fields would not add up. Codex and Claude Code also
// report usage in their own events (turn.reportedUsage): the same numbers.
import codexHarness from "@jest-m3/harness-codex";
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import type { ScriptedUsage } from "@jest-m3/scripted-model";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { ExecutionOutcome, MCPTestKit, expect, isUnavailable, type TokenUsage } from "jest-m3";
import { useScriptedModel, seedRule, shippingInExample as shipping } from "@jest-m3/test-support";

jest.setTimeout(240_000);

// Distinct numbers per step, so a sum of the wrong steps cannot match by chance.
const STEPS: Record<string, ScriptedUsage> = {
  "1-call": { inputTokens: 1101, outputTokens: 31, cachedInputTokens: 700, reasoningTokens: 11 },
  "1-reply": { inputTokens: 1203, outputTokens: 47, cachedInputTokens: 900, reasoningTokens: 7 },
  "2-call": { inputTokens: 2309, outputTokens: 53, cachedInputTokens: 1500, reasoningTokens: 13 },
  "2-reply": { inputTokens: 2411, outputTokens: 61, cachedInputTokens: 2000, reasoningTokens: 5 },
};
const NOTHING: ScriptedUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
};

function expected(turn: 1 | 2) {
  const call = STEPS[`${turn}-call`]!;
  const reply = STEPS[`${turn}-reply`]!;
  return {
    inputTokens: call.inputTokens + reply.inputTokens,
    outputTokens: call.outputTokens + reply.outputTokens,
    cached: call.cachedInputTokens! + reply.cachedInputTokens!,
    reasoning: call.reasoningTokens! + reply.reasoningTokens!,
  };
}

/**
 * The agents whose adapter reads usage from the agent's own events. Gemini CLI's ACP answer
 * carries none; OpenCode's carries the last model request's only (its uncached input), not
 * the turn's, so it is not read.
 */
const REPORTS_USAGE = new Set(["codex", "claude-code"]);

const model = useScriptedModel({
  usage: NOTHING,
  rules: [1, 2].map((turn) =>
    seedRule("The quote is {{result.amount}}.", {
      name: `quote ${turn}`,
      turn,
      callUsage: STEPS[`${turn}-call`]!,
      replyUsage: STEPS[`${turn}-reply`]!,
    }),
  ),
});

describe.each([
  ["codex", "responses", "gpt-5.5"],
  ["claude-code", "anthropic-messages", "scripted-1"],
  ["gemini", "gemini", "scripted-1"],
  ["opencode", "chat-completions", "scripted-1"],
  ["pi", "responses", "scripted-1"],
] as const)("%s", (harness, dialect: ProviderDialect, modelName) => {
  test("turn.usage equals the numbers the script set for that turn, each turn", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [codexHarness, claudeCodeHarness] });
    const [agent] = kit.agents([
      { harness, models: [modelName], provider: model.providerFor(dialect) },
    ]);
    const session = agent!.session({
      server: shipping,
      tools: ["shipping:shipping_quote"],
      timeout: 180_000,
    });
    const turns = [];
    {
      await using open = await session.open();
      turns.push(
        await open.send("Call shipping_quote once for weight_kg 2 in zone local.", {
          timeout: 180_000,
        }),
      );
      turns.push(
        await open.send("Call shipping_quote once for weight_kg 3 in zone regional.", {
          timeout: 180_000,
        }),
      );
    }
    const result = session.result;
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    let sessionInput = 0;
    for (const [index, turn] of turns.entries()) {
      expect(result).toHaveToolCall("shipping_quote", { turn, status: "success", count: 1 });
      const want = expected((index + 1) as 1 | 2);
      const usage = turn.usage as TokenUsage;
      expect(isUnavailable(usage)).toBe(false);
      expect(usage).toMatchObject({
        inputTokens: want.inputTokens,
        outputTokens: want.outputTokens,
        totalTokens: want.inputTokens + want.outputTokens,
        cachedInputTokens: want.cached,
        source: "provider",
      });
      // Anthropic's Messages API has no reasoning count; every other dialect reports it.
      if (dialect === "anthropic-messages") expect(isUnavailable(usage.reasoningTokens)).toBe(true);
      else expect(usage.reasoningTokens).toBe(want.reasoning);
      // What the agent reported in its own events, next to the tap's: the same numbers.
      if (REPORTS_USAGE.has(harness)) {
        expect(turn.reportedUsage).toMatchObject({
          inputTokens: want.inputTokens,
          outputTokens: want.outputTokens,
          cachedInputTokens: want.cached,
          source: "agent-reported",
        });
        if (harness === "codex")
          expect(turn.reportedUsage).toMatchObject({ reasoningTokens: want.reasoning });
      } else {
        expect(isUnavailable(turn.reportedUsage)).toBe(true);
      }
      sessionInput += want.inputTokens;
    }
    expect((result.usage as TokenUsage).inputTokens).toBe(sessionInput);
  });
});
