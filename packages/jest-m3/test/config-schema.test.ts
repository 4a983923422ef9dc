// m3.config.json and the agent list are checked by schemas: a refusal names the file, the
// setting's path, what is wrong and what came in, and the nearest setting for a misspelt
// one. Real files in a temporary project folder, read by the loader the preset uses.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidAgentList, InvalidConfig, loadConfig, parseAgentsVariable } from "jest-m3";

function refusalOf(config: unknown): InvalidConfig {
  const dir = mkdtempSync(join(tmpdir(), "m3-config-schema-"));
  try {
    writeFileSync(join(dir, "script.json"), JSON.stringify({ rules: [] }));
    writeFileSync(join(dir, "m3.config.json"), JSON.stringify(config));
    loadConfig(dir);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidConfig);
    expect((error as InvalidConfig).message).toContain(join(dir, "m3.config.json"));
    return error as InvalidConfig;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error("expected the configuration to be refused");
}

test.each([
  [
    { harnesess: ["codex"] },
    '"harnesess" is not a setting; the settings are resultsDir, keepRuns, harnesses, agents, scriptedModel, judge, webServers, orphans, prices. Did you mean "harnesses"?',
  ],
  [
    { scriptedModel: { script: "script.json", envv: {} } },
    '"scriptedModel.envv" is not a setting; the settings are script, env. Did you mean "env"?',
  ],
  [
    { scriptedModel: { script: "script.json", env: { M3_DOCS_CODEX_MODEL: 5 } } },
    '"scriptedModel.env.M3_DOCS_CODEX_MODEL" must be a string, got number 5.',
  ],
  [
    { scriptedModel: { script: "" } },
    '"scriptedModel.script" must be the path of a script file (JSON), got an empty string.',
  ],
  [{ orphans: "kill" }, '"orphans" must be "fail" or "warn", got "kill".'],
  [{ harnesses: ["codex", 3] }, '"harnesses[1]" must be a non-empty string, got number 3.'],
  [[], '"(root)" must be an object.'],
  [
    { agents: [{ harness: "codex", modles: ["m"] }] },
    'agents[0].modles is not a field; the fields are harness, models, trials, options. Did you mean "models"?',
  ],
])("m3.config.json %j is refused, naming the setting", (config, message) => {
  expect(refusalOf(config).message).toContain(message);
});

test("a good configuration still loads, with defaults", () => {
  const dir = mkdtempSync(join(tmpdir(), "m3-config-schema-"));
  try {
    writeFileSync(join(dir, "script.json"), JSON.stringify({ rules: [] }));
    writeFileSync(
      join(dir, "m3.config.json"),
      JSON.stringify({
        scriptedModel: { script: "script.json", env: { M3_DOCS_CODEX_MODEL: "scripted-1" } },
        agents: [{ harness: "codex", models: ["scripted-1"] }],
      }),
    );
    const config = loadConfig(dir);
    expect(config.resultsDir).toBe(join(dir, ".m3"));
    expect(config.orphans).toBe("fail");
    expect(config.harnesses).toEqual([]);
    expect(config.scriptedModel).toEqual({
      script: join(dir, "script.json"),
      env: { M3_DOCS_CODEX_MODEL: "scripted-1" },
    });
    expect(config.agents).toEqual([{ harness: "codex", models: ["scripted-1"], trials: 1 }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("M3_AGENTS items go through the same entry schema", () => {
  expect(() => parseAgentsVariable("codex=gpt*1001")).toThrow(InvalidAgentList);
  expect(() => parseAgentsVariable("codex=gpt*1001")).toThrow(
    "Agent list (M3_AGENTS): codex=gpt*1001: trials must be a whole number from 1 to 1000, got 1001.",
  );
});
