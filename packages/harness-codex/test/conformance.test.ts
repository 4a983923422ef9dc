// Core's harness conformance suite, run against the Codex adapter: the real binary, the
// scripted model, and the shipping server.
import { describeConformance } from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

const model = conformanceModel({ dialect: "responses" });

describeConformance(
  "codex",
  conformanceOptions(codexHarness, model, { models: ["gpt-5.5"], turnTimeoutMs: 60_000 }),
);
