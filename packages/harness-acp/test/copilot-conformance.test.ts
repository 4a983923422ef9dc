// Core's harness conformance suite on GitHub Copilot CLI: the real `copilot --acp` binary,
// the scripted model in the chat-completions dialect, and the shipping server. Copilot
// reports a failing provider as answer text ending in `end_turn`; its profile's turnFailure
// reads its session log, so the "failing provider" check passes and a model that merely
// answers "Error: ..." still completes (the last test).
import { describeConformance, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { copilotHarness } from "@jest-m3/harness-acp";
import { conformanceModel, conformanceOptions, SHIPPING_SCRIPT } from "@jest-m3/test-support";

// Each fault is repeated for every check (and retry) that plays it. Copilot retries a 5xx
// with backoff (about 15 s) before it reports it, so the failures here are 4xx.
const model = conformanceModel({
  dialect: "chat-completions",
  faultRepeats: 6,
  fail: { http: 400, message: "scripted bad request" },
  reply: "The quote is ready.",
  rules: [
    {
      name: "outage",
      when: { user: "outage" },
      steps: [{ http: 422, message: "scripted outage" }],
    },
    // The very text Copilot shows for a provider error, as the model's own answer.
    { name: "mimic", when: { user: "mimic" }, steps: [{ reply: "Error: 422 scripted outage" }] },
  ],
});

describeConformance(
  "copilot",
  conformanceOptions(copilotHarness, model, { models: ["scripted-1"], turnTimeoutMs: 90_000 }),
);

test("a provider error fails the turn with its status; the same text as the model's answer completes", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const [agent] = kit.agents([
    { harness: "copilot", models: ["scripted-1"], provider: model.provider },
  ]);
  const session = agent!.session({
    server: { name: "shipping", command: process.execPath, args: [SHIPPING_SCRIPT] },
    timeout: 90_000,
  });
  const before = model.model().journal.entries.length;
  let outage, mimic;
  {
    await using open = await session.open();
    outage = await open.send("outage");
    mimic = await open.send("mimic");
  }
  expect(outage.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(outage.error?.message).toMatch(/provider failed the turn \(HTTP 422\): .*scripted outage/);
  expect(mimic.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(mimic.error).toBeNull();
  expect(mimic.response?.text).toContain("Error: 422 scripted outage");
  // Ground truth: the scripted model failed the first turn's request and answered the second.
  const decisions = model
    .model()
    .journal.entries.slice(before)
    .filter((entry) => !entry.side)
    .map((entry) => [entry.decision.kind, entry.status]);
  expect(decisions[0]).toEqual(["http", 422]);
  expect(decisions.at(-1)).toEqual(["reply", 200]);
});
