/**
 * The adapter through core's agent sessions, as a user's test drives it: the seed (two
 * turns, one session, one call per turn with both wire and reported evidence, asserted with
 * jest-m3's matchers) and a turn that outlives its timeout.
 */
import { join } from "node:path";
import { expect } from "jest-m3";
import claudeCodeHarness, { TESTED_CLAUDE_CODE_VERSION } from "@jest-m3/harness-claude-code";
import {
  expectSeedOn,
  expectTurnTimedOut,
  HANG_RULE,
  perTestKitOn,
  seedRule,
} from "@jest-m3/test-support";
import { shippingServer } from "./support/claude";

jest.setTimeout(60_000);

describe("Claude Code through the kit's agent sessions", () => {
  const t = perTestKitOn(claudeCodeHarness, { rules: [seedRule(), HANG_RULE] });

  test("the seed: two turns share one session, one successful shipping_quote each, wire and reported", async () => {
    const run = await expectSeedOn(
      t.kit,
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: t.model.providerFor("anthropic-messages"),
      },
      60_000,
    );
    expect(run.result.snapshot.agent).toEqual({
      name: "claude-code:scripted-model",
      harness: "claude-code",
      model: "scripted-model",
      version: TESTED_CLAUDE_CODE_VERSION,
    });
    expect(run.first.response?.text).toBe("The quote is 9 USD.");
  });

  test("the aliases claude and claude_code select the same harness", async () => {
    const provider = t.model.providerFor("anthropic-messages");
    const agents = t.kit.agents([
      { harness: "claude", models: ["scripted-model"], provider },
      { harness: "claude_code", models: ["scripted-model"], provider },
    ]);
    for (const agent of agents) {
      const readiness = await agent.readiness();
      expect(readiness.harness.name).toBe("claude-code");
      expect(readiness.ready).toBe(true);
    }
  });

  test("a turn past its timeout: interrupted in Claude Code, timed_out in the result, nothing left running", async () => {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    await expectTurnTimedOut(
      t.kit,
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: t.model.providerFor("anthropic-messages"),
      },
      shippingServer(log),
    );
  });
});
