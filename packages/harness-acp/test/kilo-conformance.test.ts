// Core's harness conformance suite on Kilo Code: the real `kilo acp` binary, the scripted
// model in the chat-completions dialect, and the shipping server. Warm, Kilo Code's default
// (as OpenCode's in conformance.test.ts): the sessions of a plan share one `kilo acp`, and
// the suite's check that no process is left after the kit closed covers the kit's own (the
// relays and servers); kilo-session.test.ts kills a session's own process, cold.
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
