// Core's harness conformance suite, run against the Claude Code adapter: the real binary,
// the scripted model (Anthropic Messages), and the shipping server.
import { describeConformance } from "jest-m3";
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

const model = conformanceModel({ dialect: "anthropic-messages" });

describeConformance(
  "claude-code",
  conformanceOptions(claudeCodeHarness, model, {
    models: ["scripted-model"],
    turnTimeoutMs: 60_000,
  }),
);
