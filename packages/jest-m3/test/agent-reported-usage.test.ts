// Where no provider tap can stand in the path (a selection with no provider: the agent uses
// its own login and base URL), readiness says so in its modelUsage line, and turn.usage is
// what the agent reported in its own events, marked agent-reported: Claude Code's result
// usage, on the real binary. Its "vendor" here is the scripted model, reached through the
// agent's own base-URL variable (what a tap never sees), and the usage the script set for
// each step is the ground truth. (Codex takes no key without a provider, so its reported
// usage is checked next to the tap's in provider-tap-usage.test.ts.)
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import type { ScriptedUsage } from "@jest-m3/scripted-model";
import { ExecutionOutcome, MCPTestKit, expect, isUnavailable, type TokenUsage } from "jest-m3";
import { useScriptedModel, seedRule, shippingInExample as shipping } from "@jest-m3/test-support";
import { quoteOnce } from "./support/model-side";

jest.setTimeout(240_000);

const CALL: ScriptedUsage = { inputTokens: 4101, outputTokens: 37, cachedInputTokens: 4000 };
const REPLY: ScriptedUsage = { inputTokens: 4203, outputTokens: 29, cachedInputTokens: 4100 };
const NOTHING: ScriptedUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };

const model = useScriptedModel({
  usage: NOTHING,
  rules: [seedRule("The quote is {{result.amount}}.", { callUsage: CALL, replyUsage: REPLY })],
});

describe.each([
  ["claude-code", "anthropic-messages", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "scripted-1"],
] as const)("%s without a provider", (harness, dialect, baseVariable, keyVariable, modelName) => {
  test("readiness names the fallback; turn.usage is agent-reported and equals the script", async () => {
    process.env.M3_TEST_VENDOR_BASE = model.providerFor(dialect).baseUrl;
    process.env.M3_TEST_VENDOR_KEY = "not-a-real-key-0000";
    try {
      await using kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
      const [agent] = kit.agents([
        {
          harness,
          models: [modelName],
          credentialEnv: {
            [keyVariable]: "M3_TEST_VENDOR_KEY",
            [baseVariable]: "M3_TEST_VENDOR_BASE",
          },
        },
      ]);
      const readiness = await agent!.readiness();
      expect(readiness.capabilities.modelUsage).toMatchObject({ status: "degraded" });
      expect(readiness.capabilities.modelUsage!.reason).toMatch(
        /no provider tap can stand in the path.*usage is agent-reported, from /,
      );
      const before = model.journal.entries.length;
      const { result, turn } = await quoteOnce(agent!, shipping);
      expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
      expect(result).toHaveToolCall("shipping_quote", { turn, status: "success", count: 1 });
      // The agent did reach its "vendor", past any tap: nothing was recorded on the model side.
      expect(model.journal.entries.length).toBeGreaterThan(before);
      expect(result.modelRequests).toBeUndefined();
      expect(turn.modelRequests).toBeUndefined();
      const want = {
        inputTokens: CALL.inputTokens + REPLY.inputTokens,
        outputTokens: CALL.outputTokens + REPLY.outputTokens,
        cachedInputTokens: CALL.cachedInputTokens! + REPLY.cachedInputTokens!,
        source: "agent-reported",
      };
      expect(turn.usage).toMatchObject(want);
      expect(turn.reportedUsage).toEqual(turn.usage);
      expect(result.usage).toMatchObject(want);
      expect(isUnavailable((turn.usage as TokenUsage).inputTokens)).toBe(false);
    } finally {
      delete process.env.M3_TEST_VENDOR_BASE;
      delete process.env.M3_TEST_VENDOR_KEY;
    }
  });
});
