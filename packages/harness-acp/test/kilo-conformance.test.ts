// Core's harness conformance suite on Kilo Code: the real `kilo acp` binary, the scripted
// model in the chat-completions dialect, and the shipping server.
import { describeConformance } from "jest-m3";
import { kiloHarness } from "@jest-m3/harness-acp";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

// Each fault is repeated for every check (and retry) that plays it.
const model = conformanceModel({
  dialect: "chat-completions",
  faultRepeats: 6,
  fail: { http: 400, message: "scripted bad request" },
  reply: "The quote is ready.",
});

describeConformance(
  "kilo",
  conformanceOptions(kiloHarness, model, { models: ["scripted-1"], turnTimeoutMs: 90_000 }),
);
