/**
 * A session's elicitation plan in core: checked at agent.session(), required of the
 * harness's readiness (an optional capability: unsupported keeps a harness ready for
 * everything else), and answered by the plan responder adapters receive.
 */
import { HarnessNotReady, MCPTestKit } from "@jest-m3/core";
import { readinessOf } from "@jest-m3/core/harness";
import { testHarness } from "@jest-m3/core/testing";
import { PlanResponder } from "../dist/agents/session-elicitation.js";
import { shipping } from "./support/servers";

describe("a session's elicitation plan", () => {
  test("readiness: elicitation unsupported keeps a harness ready; unavailable does not", () => {
    const ready = { status: "ready" } as const;
    const base = {
      multiTurn: ready,
      toolPolicy: ready,
      wireEvidence: ready,
      reportedEvidence: ready,
      cancellation: ready,
      approvals: ready,
      credentials: ready,
    };
    const harness = { name: "h", version: null, executable: null };
    expect(
      readinessOf(harness, { ...base, elicitation: { status: "unsupported", reason: "no" } }).ready,
    ).toBe(true);
    expect(
      readinessOf(harness, { ...base, elicitation: { status: "unavailable", reason: "no" } }).ready,
    ).toBe(false);
    expect(readinessOf(harness, { ...base, mcpHttp: { status: "unsupported" } }).ready).toBe(false);
  });

  test("a harness that does not name elicitation refuses a session with a plan, before anything starts", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping, elicitation: { action: "decline" } });
    const refused = await session.open().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HarnessNotReady);
    expect((refused as HarnessNotReady).reasons).toEqual(["elicitation: unsupported"]);
    expect(kit.processes).toEqual([]);
    // The same harness opens a session without a plan.
    const plain = agent!.session({ server: shipping });
    await plain.open();
    await plain.close();
  });

  test("the responder: rules in order with times, per-turn rounds, unplanned and failing rules declined, each recorded", async () => {
    const recorded: string[] = [];
    const responder = new PlanResponder(
      {
        rules: [
          {
            when: { message: "seat" },
            answer: { action: "accept", content: { seat: "1A" } },
            times: 1,
          },
          { when: { message: "seat" }, answer: { action: "cancel" } },
          {
            when: { message: "broken" },
            answer: () => {
              throw new Error("no answer today");
            },
          },
          { when: { message: "odd" }, answer: () => ({ action: "agree" }) as never },
        ],
        roundLimit: 3,
      },
      (detail) => recorded.push(detail),
    );
    const ask = (message: string) => responder.answer({ server: "desk", mode: "form", message });
    responder.startTurn();
    expect(await ask("seat?")).toMatchObject({
      answer: { action: "accept", content: { seat: "1A" } },
      source: "planned",
    });
    expect(await ask("seat?")).toMatchObject({ answer: { action: "cancel" }, source: "planned" });
    expect(await ask("meal?")).toMatchObject({
      answer: { action: "decline" },
      source: "unplanned",
    });
    expect(await ask("seat?")).toMatchObject({
      answer: { action: "decline" },
      source: "round_limit",
    });
    responder.startTurn();
    expect(await ask("broken")).toMatchObject({
      answer: { action: "decline" },
      source: "rule_error",
    });
    expect(await ask("odd")).toMatchObject({ answer: { action: "decline" }, source: "rule_error" });
    expect(recorded).toEqual([
      'elicitation from desk (form "seat?"): accept with seat (rule 1)',
      'elicitation from desk (form "seat?"): cancel (rule 2)',
      'elicitation from desk (form "meal?"): decline (declined: no rule of the plan matches)',
      'elicitation from desk (form "seat?"): decline (declined: more than the plan\'s roundLimit of 3 in one turn)',
      'elicitation from desk (form "broken"): decline (declined: rule 3\'s answer failed: no answer today)',
      expect.stringMatching(
        /"odd"\): decline \(declined: rule 4's answer failed: .*action must be "accept", "decline" or "cancel"/,
      ),
    ]);
  });
});
