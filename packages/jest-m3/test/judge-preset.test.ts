/**
 * The judge through the preset, as a user's project meets it: with a scriptedModel in
 * m3.config.json, toPassJudge needs no judge option (the run's scripted model judges, its
 * journal says what it was sent); M3_JUDGE overrides the choice for a CI job; a bad judge
 * stops the run before any test starts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
  QUOTED_RUN_SOURCE,
} from "./support/user-project";
import { verdictRule } from "./support/judge-script";

const script = {
  rules: [
    verdictRule("judge: euros", "in euros", false, 0.1, "The reply gives USD, not euros."),
    verdictRule("judge", "## Criteria", true, 0.9, "The reply states 9 USD."),
  ],
};

const judgedTest = `
import { MCPTestKit, expect } from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";

test("judged by the run's scripted model", async () => {
${QUOTED_RUN_SOURCE}
  await expect(turn).toPassJudge("the reply states the quoted amount", { threshold: 0.8 });
  await expect(turn).not.toPassJudge("the reply states the amount in euros");
  await expect(result).toPassJudge("the session quotes once");
});
`;

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeTempDir));

function project(config: Record<string, unknown>): string {
  const dir = makeUserProject({
    "m3.config.json": JSON.stringify({ scriptedModel: { script: "model-script.json" }, ...config }),
    "model-script.json": JSON.stringify(script),
    "judged.test.ts": judgedTest,
  });
  dirs.push(dir);
  return dir;
}

/** The model names and dialects the run's scripted model was asked under by judges. */
function judgeRequests(dir: string): { dialect: string; model: string }[] {
  const journal = JSON.parse(readFileSync(join(runFolder(dir), "model-journal.json"), "utf8")) as {
    entries: { dialect: string; body: { model?: string; tools?: { name?: string }[] } }[];
  };
  return journal.entries
    .filter((entry) => JSON.stringify(entry.body).includes("## Criteria"))
    .map((entry) => ({ dialect: entry.dialect, model: String(entry.body.model) }));
}

test("with no judge configured, the run's scripted model judges under m3-judge; M3_JUDGE overrides it", () => {
  const dir = project({});
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.output).toContain("1 passed");
  expect(judgeRequests(dir)).toEqual([
    { dialect: "responses", model: "m3-judge" },
    { dialect: "responses", model: "m3-judge" },
    { dialect: "responses", model: "m3-judge" },
  ]);

  const other = project({});
  const ci = runJest(other, {
    timeoutMs: 120_000,
    env: { M3_JUDGE: JSON.stringify({ provider: "run", model: "ci-judge" }) },
  });
  expect(ci.output).toContain("1 passed");
  expect(judgeRequests(other).map((request) => request.model)).toEqual([
    "ci-judge",
    "ci-judge",
    "ci-judge",
  ]);
});

test("a bad judge in m3.config.json or M3_JUDGE stops the run before any test starts", () => {
  const dir = project({ judge: { provider: "run", model: "m", temperature: 0 } });
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.status).not.toBe(0);
  expect(run.output).toContain(
    '"judge.temperature" is not a judge field; the fields are provider, model, credentialEnv, timeoutMs.',
  );
  expect(run.output).not.toContain("judged by the run's scripted model");

  const unset = runJest(project({}), {
    timeoutMs: 120_000,
    env: {
      M3_JUDGE: JSON.stringify({ provider: "run", model: "m", credentialEnv: "NO_SUCH_KEY_M3" }),
    },
  });
  expect(unset.status).not.toBe(0);
  expect(unset.output).toContain(
    'jest-m3 configuration (the M3_JUDGE variable): "M3_JUDGE.credentialEnv" names NO_SUCH_KEY_M3, which is not set',
  );
});
