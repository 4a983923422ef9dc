/**
 * The adapter through core's agent sessions, as a user's test drives it: the seed (two
 * turns, one session, one call per turn with both wire and reported evidence) and a turn
 * that outlives its timeout.
 */
import { join } from "node:path";
import codexHarness from "@jest-m3/harness-codex";
import {
  expectSeedOn,
  expectTurnTimedOut,
  HANG_RULE,
  perTestKitOn,
  seedRule,
} from "@jest-m3/test-support";
import { shippingServer } from "./support/codex";

describe("Codex through the kit's agent sessions", () => {
  const t = perTestKitOn(codexHarness, { rules: [seedRule(), HANG_RULE] });

  test("the seed: two turns share one session, one successful shipping_quote each, wire and reported", async () => {
    const run = await expectSeedOn(
      t.kit,
      { harness: "codex", models: ["scripted"], provider: t.model.provider },
      60_000,
    );
    expect(run.result.snapshot.agent).toEqual({
      name: "codex:scripted",
      harness: "codex",
      model: "scripted",
      version: "0.171.0",
    });
    expect(run.first.response?.text).toBe("The quote is 9 USD.");
  });

  test("a turn past its timeout: interrupted in Codex, timed_out in the result, nothing left running", async () => {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    const turn = await expectTurnTimedOut(
      t.kit,
      { harness: "codex", models: ["scripted"], provider: t.model.provider },
      shippingServer(log),
    );
    expect(
      turn.events.some(
        (event) =>
          (event as { method?: string; params?: { turn?: { status?: string } } }).params?.turn
            ?.status === "interrupted",
      ),
    ).toBe(true);
  });
});
