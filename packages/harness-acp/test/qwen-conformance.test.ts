// Core's harness conformance suite on Qwen Code: the real `cli.js --acp` on the Node 22 the
// adapter kit found, the scripted model in the chat-completions dialect, and the shipping
// server. Each fault is repeated for every check (and retry) that plays it. Cold (`warm:
// false`; Qwen Code is warm by default): the suite's check that no process is left after the
// kit closed then covers Qwen Code itself (a warm one is outside the kit and stays).
import { describeConformance } from "jest-m3";
import { qwenHarness } from "@jest-m3/harness-acp";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

const model = conformanceModel({
  dialect: "chat-completions",
  faultRepeats: 6,
  fail: { http: 400, message: "scripted bad request" },
});

const options = conformanceOptions(qwenHarness, model, {
  models: ["scripted-1"],
  turnTimeoutMs: 90_000,
});

describeConformance("qwen-code", {
  ...options,
  selection: { ...options.selection, options: { warm: false } },
});
