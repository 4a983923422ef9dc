// The provider tap on a real Codex session (Responses, streamed): every model request the
// agent sent is recorded once, forwarded byte for byte (a loopback vendor endpoint in front
// of the scripted model hashes what it received), with the tools offered, the calls the
// model asked for and the usage it reported equal to the scripted model's own journal, per
// turn. A key planted through credentialEnv reaches the vendor and nothing the kit returns.
import codexHarness from "@jest-m3/harness-codex";
import {
  ExecutionOutcome,
  MCPTestKit,
  catalogCostOf,
  expect,
  isUnavailable,
  requestedCalls,
  type TokenUsage,
} from "jest-m3";
import { expectTapAgreesWithGroundTruth, startVendor, usageOfAnswers } from "./support/model-side";
import { seedRule, shipping, turnsOf, useScriptedModel } from "@jest-m3/test-support";

jest.setTimeout(180_000);

const SECRET = "sk-m3-tap-planted-3f9a1c7e";

const model = useScriptedModel({
  rules: [seedRule()],
});

test("Codex through the tap: records equal the journal, per turn, and no key is written", async () => {
  const vendor = await startVendor({ ...model.provider, envKey: "M3_TAP_KEY" });
  process.env.M3_TAP_PARENT_KEY = SECRET;
  try {
    await using kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
    const [agent] = kit.agents([
      {
        harness: "codex",
        models: ["gpt-5.5"],
        provider: vendor.provider,
        credentialEnv: { M3_TAP_KEY: "M3_TAP_PARENT_KEY" },
      },
    ]);
    const session = agent!.session({ server: shipping, tools: ["shipping:shipping_quote"] });
    const {
      turns: [first, second],
      result,
    } = await turnsOf(session, [
      "Call shipping_quote once for weight_kg 2 in zone local.",
      "Call shipping_quote once for weight_kg 3 in zone regional.",
    ]);
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    const pairs = expectTapAgreesWithGroundTruth(result, model.journal.entries, vendor.seen, {
      shipping: ["shipping_quote", "shipping_track"],
    });
    expect(pairs.length).toBeGreaterThanOrEqual(4);

    // Per turn: its requests (a call, then the reply) and usage that sums their answers.
    for (const turn of [first, second]) {
      const requests = turn.modelRequests ?? [];
      expect(requests.map((r) => r.toolCalls.map((c) => c.name))).toEqual(
        expect.arrayContaining([["shipping_quote"], []]),
      );
      expect(requests.every((r) => r.turnId === turn.snapshot.turnId)).toBe(true);
      const truth = usageOfAnswers(requests, pairs);
      expect(turn.usage).toMatchObject({
        inputTokens: truth.input,
        outputTokens: truth.output,
        totalTokens: truth.input + truth.output,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        requests: requests.length,
      });
    }
    // The session adds up every request, in turns or not.
    const session_ = result.usage as TokenUsage;
    expect(isUnavailable(result.usage)).toBe(false);
    expect(session_.requests).toBe(result.modelRequests!.filter((r) => r.generation).length);

    // The matchers read the same numbers: a budget at the total passes, one token less fails.
    expect(result).toStayWithinTokens({ total: session_.totalTokens });
    expect(() => expect(result).toStayWithinTokens({ total: session_.totalTokens - 1 })).toThrow(
      /over: total/,
    );
    const firstInput = (first.usage as TokenUsage).inputTokens;
    expect(result).toStayWithinTokens({ input: firstInput }, { turn: 1 });
    expect(() =>
      expect(result).toStayWithinTokens({ input: firstInput - 1 }, { turn: first }),
    ).toThrow(/turn 1's tokens/);
    const roundTrips = first.modelRequests!.length;
    expect(first).toHaveModelRequests({ min: roundTrips, max: roundTrips });
    expect(() => expect(result).toHaveModelRequests({ max: roundTrips - 1, turn: 1 })).toThrow(
      /asked for shipping_quote/,
    );

    // The catalog as Codex offered it: deferred behind tool_search, then the allow-listed
    // tool only, in its namespace, loaded by the search.
    const catalog = catalogCostOf(result);
    expect(catalog.agentTools.map((t) => t.name)).toContain("tool_search");
    const own = catalog.servers.find((s) => s.server === "shipping")!;
    expect(own.tools.map((t) => [t.namespace, t.name, t.offeredBy])).toEqual([
      ["mcp__shipping", "shipping_quote", "tool_search"],
    ]);
    expect(own.bytes).toBeGreaterThan(100);
    expect(own.estimatedTokens).toBe(Math.ceil(own.bytes / 4));

    // The calls the model asked for, each paired with the wire call it became; without the
    // wire calls, each is visible as one that never reached the server.
    const asked = requestedCalls(result);
    expect(asked.map((c) => [c.server, c.tool, c.wire?.status])).toEqual([
      ["shipping", "shipping_quote", "success"],
      ["shipping", "shipping_quote", "success"],
    ]);
    expect(asked.map((c) => c.wire?.arguments)).toEqual([
      { weight_kg: 2, zone: "local" },
      { weight_kg: 3, zone: "regional" },
    ]);
    const lost = requestedCalls({ ...result, trace: { ...result.trace, toolCalls: [] } });
    expect(lost.map((c) => [c.tool, c.wire])).toEqual([
      ["shipping_quote", null],
      ["shipping_quote", null],
    ]);

    // The key went through the tap to the vendor, and is in nothing the kit returned.
    expect(vendor.seen.some((s) => String(s.headers.authorization).includes(SECRET))).toBe(true);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.modelRequests!.every((r) => r.headerNames.includes("authorization"))).toBe(true);
  } finally {
    delete process.env.M3_TAP_PARENT_KEY;
    await vendor.close();
  }
});
