import type { ModelProvider } from "../harness/contract.js";

let runProvider: { provider: ModelProvider; source: string } | undefined;

/**
 * Sets the model provider for selections that name none, for this process: how a test
 * runner's configuration (the jest-m3 preset's `scriptedModel`) points every agent of a
 * run at the scripted model without touching the test files. Pass `undefined` to clear.
 * The choice is explicit and reported; it never stands in for a missing login on its own.
 *
 * @param source - Where the choice came from, for messages (e.g. `m3.config.json scriptedModel`).
 */
export function setRunProvider(
  provider: ModelProvider | undefined,
  source = "the run configuration",
): void {
  runProvider = provider ? { provider, source } : undefined;
}

/** The provider set by {@link setRunProvider}, if any. */
export function getRunProvider(): { provider: ModelProvider; source: string } | undefined {
  return runProvider;
}
