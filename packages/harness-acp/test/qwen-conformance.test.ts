// Core's harness conformance suite on Qwen Code: the real `cli.js --acp` on the Node 22 the
// adapter kit found, the scripted model in the chat-completions dialect, and the shipping
// server. Each fault is repeated for every check (and retry) that plays it.
import { describeConformance } from "jest-m3";
import { qwenHarness } from "@jest-m3/harness-acp";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

const model = conformanceModel({
  dialect: "chat-completions",
  faultRepeats: 6,
  fail: { http: 400, message: "scripted bad request" },
});

describeConformance(
  "qwen-code",
  conformanceOptions(qwenHarness, model, { models: ["scripted-1"], turnTimeoutMs: 90_000 }),
);
