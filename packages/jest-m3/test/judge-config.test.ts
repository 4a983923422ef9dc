// m3.config.json `judge` and the M3_JUDGE variable: checked by the judge selection's schema
// when the configuration loads (global setup, before anything starts), the variable over
// the file, with a message naming where, the field and the fix.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidConfig, loadConfig } from "jest-m3";
import { configuredJudge } from "../dist/shared/judge-config";

function withConfig<T>(config: unknown, body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "m3-judge-config-"));
  try {
    writeFileSync(join(dir, "script.json"), JSON.stringify({ rules: [] }));
    writeFileSync(join(dir, "m3.config.json"), JSON.stringify(config));
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const live = {
  provider: { name: "vendor", baseUrl: "https://models.example.test/v1", wireApi: "responses" },
  model: "judge-large",
  credentialEnv: "JUDGE_API_KEY",
};

test("a judge in m3.config.json is loaded as given", () => {
  withConfig({ judge: live }, (dir) => {
    const config = loadConfig(dir);
    expect(config.judge).toEqual(live);
    expect(configuredJudge(config, { JUDGE_API_KEY: "set" })).toEqual(config.judge);
  });
});

test.each([
  [{ judge: { model: "m" } }, '"judge.provider" must be { name, baseUrl, wireApi } or "run"'],
  [
    { judge: { provider: "run", model: "m", modle: "x" } },
    '"judge.modle" is not a judge field; the fields are provider, model, credentialEnv, timeoutMs. Did you mean "model"?',
  ],
  [{ judge: { provider: "run", model: "" } }, '"judge.model" must be a model name'],
  [{ judge: { ...live, provider: { ...live.provider, wireApi: "bedrock" } } }, "judge.provider"],
  [{ judge: "gpt" }, '"judge" must be { provider, model, credentialEnv? }, got "gpt".'],
])("m3.config.json %j is refused: %s", (config, expected) => {
  withConfig(config, (dir) => {
    expect(() => loadConfig(dir)).toThrow(InvalidConfig);
    expect(() => loadConfig(dir)).toThrow(expected);
  });
});

test("M3_JUDGE overrides the file; its problems name the variable", () => {
  withConfig({ judge: live, scriptedModel: { script: "script.json" } }, (dir) => {
    const config = loadConfig(dir);
    expect(configuredJudge(config, { M3_JUDGE: '{"provider":"run","model":"ci-judge"}' })).toEqual({
      provider: "run",
      model: "ci-judge",
    });
    expect(() => configuredJudge(config, { M3_JUDGE: "gpt-5" })).toThrow(
      'jest-m3 configuration (the M3_JUDGE variable): "M3_JUDGE" must be JSON like',
    );
    expect(() => configuredJudge(config, { M3_JUDGE: '{"provider":"run"}' })).toThrow(
      '"M3_JUDGE.model" must be a model name',
    );
  });
});

test("a credential that is not set, or the run's provider without one, is refused before anything starts", () => {
  withConfig({ judge: live }, (dir) => {
    expect(() => configuredJudge(loadConfig(dir), {})).toThrow(
      '"judge.credentialEnv" names JUDGE_API_KEY, which is not set',
    );
  });
  withConfig({ judge: { provider: "run", model: "m" } }, (dir) => {
    expect(() => configuredJudge(loadConfig(dir), {})).toThrow(
      '"judge.provider" is "run" (the run\'s scripted model), but no scriptedModel is configured',
    );
  });
  withConfig(
    { judge: { provider: "run", model: "m" }, scriptedModel: { script: "script.json" } },
    (dir) => {
      const config = loadConfig(dir);
      expect(configuredJudge(config, {})).toEqual({ provider: "run", model: "m" });
      expect(() => configuredJudge(config, { M3_PROVIDER: "live" })).toThrow(
        "but this run is live (M3_PROVIDER=live)",
      );
    },
  );
});
