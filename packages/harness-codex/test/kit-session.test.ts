/**
 * The adapter through core's agent sessions, as a user's test drives it: the seed (two
 * turns, one session, one call per turn with both wire and reported evidence) and a turn
 * that outlives its timeout.
 */
import { join } from "node:path";
import { ExecutionOutcome, TurnOutcome } from "@jest-m3/core";
import codexHarness from "@jest-m3/harness-codex";
import { expectSeedOn, HANG_RULE, perTestKit, seedRule } from "@jest-m3/test-support";
import { isRunning, shippingServer } from "./support/codex";

describe("Codex through the kit's agent sessions", () => {
  const t = perTestKit({
    script: { rules: [seedRule(), HANG_RULE] },
    model: "each",
    kit: { env: {}, killGraceMs: 500, harnesses: [codexHarness] },
  });

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
    const [agent] = t.kit.agents([
      { harness: "codex", models: ["scripted"], provider: t.model.provider },
    ]);
    const session = agent!.session({ server: shippingServer(log), timeout: 60_000 });
    let turn;
    let pids: number[];
    {
      await using open = await session.open();
      pids = t.kit.processes.map((child) => child.pid);
      const startedAt = Date.now();
      turn = await open.send("Please hang.", { timeout: 1500 });
      expect(Date.now() - startedAt).toBeLessThan(4000);
    }
    expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
    expect(turn.error?.message).toMatch(/did not finish within 1500 ms/);
    expect(
      turn.events.some(
        (event) =>
          (event as { method?: string; params?: { turn?: { status?: string } } }).params?.turn
            ?.status === "interrupted",
      ),
    ).toBe(true);
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
    expect(pids.filter(isRunning)).toEqual([]);
  });
});
