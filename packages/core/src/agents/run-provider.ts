import type { HarnessDefinition, ModelProvider, ProviderDialect } from "../harness/contract.js";

/**
 * Where a run's default model provider comes from: a service that can answer in several
 * dialects (the scripted model does) or a single provider in one dialect.
 */
export interface RunProviderSource {
  /** The provider in `dialect`, or undefined when this source does not speak it. */
  providerFor(dialect: ProviderDialect): ModelProvider | undefined;
}

let runProvider: { provider: ModelProvider; source: string; from: RunProviderSource } | undefined;

/**
 * Sets the model provider for selections that name none, for this process: how a test
 * runner's configuration (the jest-m3 preset's `scriptedModel`) points every agent of a
 * run at the scripted model without touching the test files. Pass `undefined` to clear.
 * The choice is explicit and reported; it never stands in for a missing login on its own.
 *
 * Give a {@link RunProviderSource} (the scripted model's `providerFor`) so each harness gets
 * the provider in its own dialect; a plain provider serves only harnesses of its dialect.
 *
 * @param source - Where the choice came from, for messages (e.g. `m3.config.json scriptedModel`).
 */
export function setRunProvider(
  provider: ModelProvider | (RunProviderSource & { readonly provider: ModelProvider }) | undefined,
  source = "the run configuration",
): void {
  if (!provider) {
    runProvider = undefined;
    return;
  }
  const single = "provider" in provider ? provider.provider : provider;
  const from: RunProviderSource =
    "providerFor" in provider
      ? provider
      : { providerFor: (dialect) => (dialect === single.wireApi ? single : undefined) };
  runProvider = { provider: single, source, from };
}

/** The provider set by {@link setRunProvider}, if any. */
export function getRunProvider(): { provider: ModelProvider; source: string } | undefined {
  return runProvider && { provider: runProvider.provider, source: runProvider.source };
}

/** The dialects a harness speaks, preferred first. */
export function harnessDialects(harness: HarnessDefinition): readonly ProviderDialect[] {
  return harness.dialects && harness.dialects.length > 0 ? harness.dialects : ["responses"];
}

/** The run provider in the first of `dialects` it serves, if there is a run provider. */
export function runProviderFor(dialects: readonly ProviderDialect[]): ModelProvider | undefined {
  if (!runProvider) return undefined;
  for (const dialect of dialects) {
    const provider = runProvider.from.providerFor(dialect);
    if (provider) return provider;
  }
  return undefined;
}
