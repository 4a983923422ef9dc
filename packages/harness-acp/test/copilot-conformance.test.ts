// Core's harness conformance suite on GitHub Copilot CLI: the real `copilot --acp` binary,
// the scripted model in the chat-completions dialect, and the shipping server. Copilot
// reports a failing provider as answer text ending in `end_turn`; its profile's turnFailure
// reads its session log, so the "failing provider" check passes and a model that merely
// answers "Error: ..." still completes (the last test).
import { join } from "node:path";
import { describeConformance, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import type { ModelProvider } from "@jest-m3/core/harness";
import { copilotHarness } from "@jest-m3/harness-acp";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { REPO_ROOT } from "./support/acp";

// Each fault is repeated for every check (and retry) that plays it.
let model: ScriptedModel | undefined;
const repeat = <T>(step: T, times = 6): T[] => Array.from({ length: times }, () => step);
beforeAll(async () => {
  model = await startScriptedModel({
    rules: [
      {
        name: "call",
        when: { user: "conformance: call the tool" },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { reply: "The quote is ready." },
        ],
      },
      { name: "hang", when: { user: "conformance: hang" }, steps: repeat({ hang: true }) },
      {
        name: "fail",
        when: { user: "conformance: fail" },
        steps: repeat({ http: 400, message: "scripted bad request" }),
      },
      {
        name: "outage",
        when: { user: "outage" },
        steps: [{ http: 422, message: "scripted outage" }],
      },
      // The very text Copilot shows for a provider error, as the model's own answer.
      { name: "mimic", when: { user: "mimic" }, steps: [{ reply: "Error: 422 scripted outage" }] },
    ],
  });
});
afterAll(async () => {
  await model?.close();
});

/** The model's provider, read when a check runs (the model listens by then). */
const current = (): ModelProvider => (model as ScriptedModel).providerFor("chat-completions");
const provider: ModelProvider = {
  get name() {
    return current().name;
  },
  get baseUrl() {
    return current().baseUrl;
  },
  get wireApi() {
    return current().wireApi;
  },
};

describeConformance("copilot", {
  harness: copilotHarness,
  selection: { models: ["scripted-1"], provider },
  server: {
    name: "shipping",
    command: process.execPath,
    args: [join(REPO_ROOT, "examples/shipping/shipping-server.mjs")],
  },
  tool: "shipping_quote",
  prompts: {
    callTool: "conformance: call the tool",
    hang: "conformance: hang",
    fail: "conformance: fail",
  },
  turnTimeoutMs: 90_000,
});

test("a provider error fails the turn with its status; the same text as the model's answer completes", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const [agent] = kit.agents([{ harness: "copilot", models: ["scripted-1"], provider }]);
  const session = agent!.session({
    server: {
      name: "shipping",
      command: process.execPath,
      args: [join(REPO_ROOT, "examples/shipping/shipping-server.mjs")],
    },
    timeout: 90_000,
  });
  const before = (model as ScriptedModel).journal.entries.length;
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
  const decisions = (model as ScriptedModel).journal.entries
    .slice(before)
    .filter((entry) => !entry.side)
    .map((entry) => [entry.decision.kind, entry.status]);
  expect(decisions[0]).toEqual(["http", 422]);
  expect(decisions.at(-1)).toEqual(["reply", 200]);
});
