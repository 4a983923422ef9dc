import type { ModelProvider } from "@jest-m3/core";

/**
 * What global setup hands to test workers, through their environment (workers are
 * separate processes: globals would not cross).
 */
export const RUN_ENV = {
  runId: "M3_RUN_ID",
  runDir: "M3_RUN_DIR",
  scriptedProvider: "M3_SCRIPTED_PROVIDER",
} as const;

/** The folder of the current run (`.m3/runs/<run-id>`), when the preset's global setup ran. */
export function runDir(): string | undefined {
  return process.env[RUN_ENV.runDir] || undefined;
}

/**
 * The provider of the scripted model that global setup started from the configuration's
 * `scriptedModel.script`, to pass as a selection's `provider`.
 *
 * @throws when no scripted model was configured, saying how to configure one.
 */
export function scriptedProvider(): ModelProvider {
  const raw = process.env[RUN_ENV.scriptedProvider];
  if (!raw) {
    throw new Error(
      'No shared scripted model is running. Configure one in m3.config.json ({ "scriptedModel": { "script": "path/to/script.json" } }) ' +
        'and use preset: "jest-m3", or start one in the test with startScriptedModel() from @jest-m3/scripted-model.',
    );
  }
  return JSON.parse(raw) as ModelProvider;
}
