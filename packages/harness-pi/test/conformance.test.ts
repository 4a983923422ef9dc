// Core's harness conformance suite, run against the Pi adapter: the real Pi binary, the
// scripted model (the Responses API), and the shipping server.
import { describeConformance } from "jest-m3";
import piHarness from "@jest-m3/harness-pi";
import { conformanceModel, conformanceOptions } from "@jest-m3/test-support";

const model = conformanceModel({ dialect: "responses" });

describeConformance(
  "pi",
  conformanceOptions(piHarness, model, { models: ["scripted-model"], turnTimeoutMs: 60_000 }),
);
