// Core's harness conformance suite, run against both ACP agents: the real binaries, the
// scripted model in each agent's dialect, and the shipping server.
import { join } from "node:path";
import { describeConformance } from "jest-m3";
import type { ModelProvider, ProviderDialect } from "@jest-m3/core/harness";
import { geminiHarness, opencodeHarness } from "@jest-m3/harness-acp";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { REPO_ROOT } from "./support/acp";

// A model per agent: neither Gemini CLI nor OpenCode names its conversation, so the
// scripted model tells conversations apart only by their turns; each fault is repeated for
// every check (and retry) that plays it.
const models = new Map<ProviderDialect, ScriptedModel>();
const repeat = <T>(step: T, times = 6): T[] => Array.from({ length: times }, () => step);
beforeAll(async () => {
  for (const dialect of ["gemini", "chat-completions"] as const) {
    models.set(
      dialect,
      await startScriptedModel({
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
      }),
    );
  }
});
afterAll(async () => {
  for (const model of models.values()) await model.close();
});

/** The model's provider in `dialect`, read when a check runs (the model listens by then). */
function provider(dialect: ProviderDialect): ModelProvider {
  const current = (): ModelProvider => (models.get(dialect) as ScriptedModel).providerFor(dialect);
  return {
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
}

const common = {
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
};

describeConformance("gemini", {
  ...common,
  harness: geminiHarness,
  selection: { models: ["scripted-1"], provider: provider("gemini") },
});

describeConformance("opencode", {
  ...common,
  harness: opencodeHarness,
  selection: { models: ["scripted-1"], provider: provider("chat-completions") },
});
