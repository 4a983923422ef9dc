import type { ModelProvider, PriceTable, ProviderDialect } from "@jest-m3/core";
import { PROVIDER_DIALECTS } from "@jest-m3/core/lean";

/**
 * The run's hand-off from Jest's main process to its test workers: everything global setup
 * (`main/run-setup.ts`) gives the workers goes through these variables of their environment
 * (workers are separate processes: globals would not cross), and this module is where each
 * one is named. Worker code reads them through the functions below or the module that owns
 * the value (`judge-config.ts`, `progress.ts`, `run-plan.ts`), never by a literal name.
 */
export const RUN_ENV = {
  /** The judge global setup resolved (`JudgeSelection` as JSON), when one is configured. */
  judge: "M3_RUN_JUDGE",
  /** `1` when live progress lines are on for this run, `0` when off. */
  progress: "M3_PROGRESS",
  /** `1` when no test of this run can use the kit: the workers skip its setup. */
  kitUnused: "M3_RUN_KIT_UNUSED",
  /** The run's web servers (`{ name: url }` as JSON), started by global setup. */
  webServers: "M3_RUN_WEB_SERVERS",
  runId: "M3_RUN_ID",
  runDir: "M3_RUN_DIR",
  scriptedProvider: "M3_SCRIPTED_PROVIDER",
  /** The shared scripted model's provider per dialect, as JSON `{ dialect: provider }`. */
  scriptedProviders: "M3_SCRIPTED_PROVIDERS",
  /** The run's agents (`MatrixAgent[]` as JSON), resolved once by global setup. */
  agents: "M3_RUN_AGENTS",
  /** m3.config.json's price table (`PriceTable` as JSON), when it has one. */
  prices: "M3_RUN_PRICES",
  /** The results folder whose probe cache the workers read and add to; unset when it is off. */
  probeCache: "M3_RUN_PROBE_CACHE",
} as const;

/** A scripted model as global setup sees it: `providerFor` where the package has it. */
interface SharedModel {
  readonly provider: ModelProvider;
  providerFor?(dialect: ProviderDialect): ModelProvider | undefined;
}

/** The shared model's provider in every dialect it serves, for the workers' environment. */
export function providersOf(model: SharedModel): Partial<Record<ProviderDialect, ModelProvider>> {
  const providers: Partial<Record<ProviderDialect, ModelProvider>> = {};
  for (const dialect of PROVIDER_DIALECTS) {
    let provider: ModelProvider | undefined;
    try {
      provider = model.providerFor?.(dialect);
    } catch {
      provider = undefined; // a dialect this version of the scripted model does not serve
    }
    if (provider) providers[dialect] = provider;
  }
  providers.responses ??= model.provider;
  return providers;
}

/** What global setup handed this worker: the shared model's providers by dialect. */
export function sharedProviders(): Partial<Record<ProviderDialect, ModelProvider>> | undefined {
  const raw = process.env[RUN_ENV.scriptedProviders];
  return raw ? (JSON.parse(raw) as Partial<Record<ProviderDialect, ModelProvider>>) : undefined;
}

/** The run's price table (m3.config.json `prices`), when global setup was given one. */
export function runPrices(): PriceTable | undefined {
  const raw = process.env[RUN_ENV.prices];
  return raw ? (JSON.parse(raw) as PriceTable) : undefined;
}

/** The folder of the current run (`.m3/runs/<run-id>`), when the preset's global setup ran. */
export function runDir(): string | undefined {
  return process.env[RUN_ENV.runDir] || undefined;
}

/**
 * The provider of the scripted model that global setup started from the configuration's
 * `scriptedModel.script`, to pass as a selection's `provider`: in `dialect` (default
 * `responses`, the Codex dialect).
 *
 * @throws when no scripted model was configured, saying how to configure one.
 */
export function scriptedProvider(dialect: ProviderDialect = "responses"): ModelProvider {
  const providers = sharedProviders();
  const raw = process.env[RUN_ENV.scriptedProvider];
  if (providers?.[dialect]) return providers[dialect];
  if (providers && !providers[dialect]) {
    throw new Error(
      `The shared scripted model does not serve the "${dialect}" dialect (it serves ${Object.keys(providers).join(", ")}). Update @jest-m3/scripted-model.`,
    );
  }
  if (!raw) {
    throw new Error(
      'No shared scripted model is running. Configure one in m3.config.json ({ "scriptedModel": { "script": "path/to/script.json" } }) ' +
        'and use preset: "jest-m3", or start one in the test with startScriptedModel() from @jest-m3/scripted-model.',
    );
  }
  return JSON.parse(raw) as ModelProvider;
}

/**
 * The URL of a web server the run started from m3.config.json's `webServers`, by its name:
 * global setup waited until it answered, and global teardown stops it.
 *
 * @example
 * ```ts
 * const catalogue = { name: "catalogue", url: webServerUrl("catalogue") };
 * ```
 * @throws when no web server of that name was started, naming those that were.
 */
export function webServerUrl(name: string): string {
  const raw = process.env[RUN_ENV.webServers];
  const servers = raw ? (JSON.parse(raw) as Record<string, string>) : {};
  const url = servers[name];
  if (url !== undefined) return url;
  const names = Object.keys(servers);
  throw new Error(
    names.length > 0
      ? `jest-m3: no web server named ${JSON.stringify(name)} was started; this run's are ${names.map((n) => JSON.stringify(n)).join(", ")} (m3.config.json "webServers").`
      : `jest-m3: no web server named ${JSON.stringify(name)}: this run started none. Add it to m3.config.json, e.g. "webServers": [{ "name": ${JSON.stringify(name)}, "command": "node", "args": ["server.mjs"], "url": "http://127.0.0.1:8931/mcp" }], and run with preset: "jest-m3" (or start one in the file with startWebServer()).`,
  );
}
