import type * as JestGlobals from "@jest/globals";
import { conformanceChecks, type ConformanceOptions } from "@jest-m3/core/runner";

/**
 * Runs core's harness conformance suite as Jest tests, one test per check.
 *
 * @example
 * ```ts
 * describeConformance("my harness", { harness, selection: { models: ["m"], provider }, server, tool: "echo", prompts });
 * ```
 */
export function describeConformance(
  name: string,
  options: ConformanceOptions,
  timeoutMs = 120_000,
): void {
  // Loaded here, inside a test file: @jest/globals refuses to load anywhere else.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- must load lazily
  const { describe, test } = require("@jest/globals") as typeof JestGlobals;
  describe(`harness conformance: ${name}`, () => {
    for (const check of conformanceChecks(options)) test(check.name, () => check.run(), timeoutMs);
  });
}
