// The provider tap on Claude Code (Anthropic Messages), Gemini CLI (Gemini API) and
// OpenCode (Chat Completions), each a real binary on the scripted model: every model
// request recorded once and forwarded byte for byte (a loopback vendor endpoint hashes what
// it received), tools offered, requested calls and reported usage equal to the scripted
// model's journal, usage per turn the sum of its answers, and a planted key in nothing the
// kit returned; the catalog cost of one server differs between agents.
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { ExecutionOutcome, MCPTestKit, catalogCostOf, expect } from "jest-m3";
import {
  expectTapAgreesWithGroundTruth,
  quoteOnce,
  startVendor,
  usageOfAnswers,
} from "./support/model-side";
import { useScriptedModel, seedRule, shippingInExample as shipping } from "@jest-m3/test-support";

jest.setTimeout(240_000);

const SECRET = "sk-m3-tap-planted-8d2e5b41";

const catalogBytes = new Map<string, number>();
const model = useScriptedModel({
  rules: [seedRule()],
});

describe.each([
  ["claude-code", "anthropic-messages"],
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
] as const)("%s through the tap", (harness, dialect: ProviderDialect) => {
  test("records equal the journal per request and per turn; no key in the result", async () => {
    const before = model.journal.entries.length;
    const vendor = await startVendor({ ...model.providerFor(dialect), envKey: "M3_TAP_KEY" });
    process.env.M3_TAP_PARENT_KEY = SECRET;
    try {
      await using kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
      const [agent] = kit.agents([
        {
          harness,
          models: ["scripted-1"],
          provider: vendor.provider,
          credentialEnv: { M3_TAP_KEY: "M3_TAP_PARENT_KEY" },
        },
      ]);
      const { result, turn } = await quoteOnce(agent!, shipping);
      expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
      const pairs = expectTapAgreesWithGroundTruth(
        result,
        model.journal.entries.slice(before),
        vendor.seen,
        { shipping: ["shipping_quote", "shipping_track"] },
      );
      const requests = turn.modelRequests ?? [];
      expect(requests.flatMap((r) => r.toolCalls.map((c) => c.arguments))).toContainEqual({
        weight_kg: 2,
        zone: "local",
      });
      const counted = requests.filter((r) => r.generation && (r.status ?? 0) < 400);
      const truth = usageOfAnswers(counted, pairs);
      expect(turn.usage).toMatchObject({
        inputTokens: truth.input,
        outputTokens: truth.output,
        requests: counted.length,
        source: "provider",
      });
      const own = catalogCostOf(result).servers.find((s) => s.server === "shipping")!;
      expect(own.tools.length).toBe(1);
      expect(own.bytes).toBeGreaterThan(50);
      catalogBytes.set(harness, own.bytes);

      expect(JSON.stringify(result)).not.toContain(SECRET);
    } finally {
      delete process.env.M3_TAP_PARENT_KEY;
      await vendor.close();
    }
  });
});

test("the same server's catalog costs a different number of bytes on different agents", () => {
  expect(catalogBytes.size).toBe(3);
  console.log(
    `shipping_quote's catalog cost, bytes: ${JSON.stringify(Object.fromEntries(catalogBytes))}`,
  );
  expect(new Set(catalogBytes.values()).size).toBeGreaterThan(1);
});
