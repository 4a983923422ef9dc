// Core's harness conformance suite, run against the Pi adapter: the real Pi binary, the
// scripted model (the Responses API), and the shipping server.
import { join } from "node:path";
import { conformanceChecks } from "@jest-m3/core/harness";
import piHarness from "@jest-m3/harness-pi";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { REPO_ROOT } from "./support/pi";

jest.setTimeout(90_000);

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel({
    rules: [
      {
        name: "call",
        when: { user: "conformance: call the tool" },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { reply: "The quote is {{result.amount}} {{result.currency}}." },
        ],
      },
      { name: "hang", when: { user: "conformance: hang" }, steps: [{ hang: true }] },
      {
        name: "fail",
        when: { user: "conformance: fail" },
        steps: [{ http: 500, message: "scripted outage" }],
      },
    ],
  });
});
afterAll(() => model.close());

describe("harness conformance: pi", () => {
  const checks = () =>
    conformanceChecks({
      harness: piHarness,
      selection: {
        models: ["scripted-model"],
        provider: model.providerFor("responses"),
      },
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
      turnTimeoutMs: 60_000,
    });
  // The checks need the model's provider, known only once it listens: look them up by index.
  const names = [
    "multi-turn: two turns on one session id, each with its own wire evidence",
    "allow-list: a tool outside it never reaches the server",
    "timeout: a turn past its budget ends timed_out, readable, with no process left",
    "interrupt: cancel() during a turn ends it cancelled",
    "failing provider: the turn fails and the session stays usable",
  ];
  names.forEach((name, index) => {
    test(name, async () => {
      const check = checks()[index]!;
      expect(check.name).toBe(name);
      await check.run();
    });
  });
});
