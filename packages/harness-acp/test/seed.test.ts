/**
 * The project's seed, unchanged, on both ACP agents, through the kit as a user's test
 * drives it: the harness is found by name through this package's manifest, two turns
 * share one session, each with its own wire evidence, and `toHaveToolCall` addresses them
 * per turn.
 */
import { expect } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { expectSeedOn, perTestKit, seedRule } from "@jest-m3/test-support";

jest.setTimeout(180_000);

const t = perTestKit({
  script: { rules: [seedRule("The quote for {{match.1}} kg is ready.")] },
  kit: { env: {} },
});

describe.each([
  ["gemini", "gemini", "0.61.0"],
  ["opencode", "chat-completions", "1.18.33"],
] as const)("the seed on %s", (harness, dialect: ProviderDialect, version) => {
  test("two turns share one session, one shipping_quote each, wire and reported", async () => {
    const run = await expectSeedOn(t.kit, {
      harness,
      models: ["scripted-1"],
      provider: t.model.providerFor(dialect),
    });
    expect(run.result.snapshot.agent).toEqual(
      expect.objectContaining({ harness, model: "scripted-1", version }),
    );
    expect(run.first.response?.text).toBe("The quote for 2 kg is ready.");
  });
});
