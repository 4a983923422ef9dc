// Core's harness conformance suite on Qwen Code: the real `cli.js --acp` on Node 22, the scripted
// model in the chat-completions dialect, and the shipping server.
import { join } from "node:path";
import { describeConformance } from "jest-m3";
import type { ModelProvider } from "@jest-m3/core/harness";
import { qwenHarness } from "@jest-m3/harness-acp";
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

describeConformance("qwen-code", {
  harness: qwenHarness,
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
