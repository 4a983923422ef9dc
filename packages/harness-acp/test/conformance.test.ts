// Core's harness conformance suite, run against both ACP agents: the real binaries, the
// scripted model in each agent's dialect, and the shipping server.
import { describeConformance } from "jest-m3";
import { geminiHarness, opencodeHarness } from "@jest-m3/harness-acp";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

// A model per agent: neither Gemini CLI nor OpenCode names its conversation, so the
// scripted model tells conversations apart only by their turns; each fault is repeated for
// every check (and retry) that plays it.
const acpModel = { faultRepeats: 6, fail: { http: 400, message: "scripted bad request" } };
const gemini = conformanceModel({ ...acpModel, dialect: "gemini", reply: "The quote is ready." });
const opencode = conformanceModel({
  ...acpModel,
  dialect: "chat-completions",
  reply: "The quote is ready.",
});
const options = { models: ["scripted-1"], turnTimeoutMs: 90_000 };

describeConformance("gemini", conformanceOptions(geminiHarness, gemini, options));
describeConformance("opencode", conformanceOptions(opencodeHarness, opencode, options));
