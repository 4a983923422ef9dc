/**
 * Which judge `toPassJudge` asks when a test names none: the `M3_JUDGE` variable (a CI
 * job's choice, JSON) over m3.config.json's `judge`, else the run's scripted model. Global
 * setup checks the choice before anything starts and hands it to the workers.
 */
import { checkJudgeSelection, type JudgeSelection } from "@jest-m3/core/validation";
import { InvalidConfig, type M3Config } from "./config.js";
import { RUN_ENV } from "./hand-off.js";

/** The variable a CI job sets to choose the judge: `{ "provider": ..., "model": ... }` as JSON. */
export const JUDGE_ENV = "M3_JUDGE";
/** What global setup hands the workers: the checked judge selection, as JSON. */
export const RUN_JUDGE_ENV = RUN_ENV.judge;
/** The model name the run's scripted model is asked under when no judge is configured. */
export const DEFAULT_JUDGE_MODEL = "m3-judge";

/**
 * The configured judge (`M3_JUDGE` over `judge`), checked; undefined when neither is set.
 *
 * @throws {@link InvalidConfig} naming the variable or the key, before anything starts.
 */
export function configuredJudge(
  config: Pick<M3Config, "judge" | "source" | "scriptedModel">,
  env: Readonly<Record<string, string | undefined>>,
): JudgeSelection | undefined {
  const variable = env[JUDGE_ENV];
  let judge = config.judge;
  let where = `${config.source ?? "defaults"}`;
  let field = "judge";
  if (variable !== undefined && variable.trim() !== "") {
    where = `the ${JUDGE_ENV} variable`;
    field = JUDGE_ENV;
    let raw: unknown;
    try {
      raw = JSON.parse(variable);
    } catch {
      throw new InvalidConfig(
        where,
        JUDGE_ENV,
        `must be JSON like {"provider":{"name":"openai","baseUrl":"https://…/v1","wireApi":"chat-completions"},"model":"…","credentialEnv":"OPENAI_API_KEY"}, got ${JSON.stringify(variable.slice(0, 80))}.`,
      );
    }
    try {
      judge = checkJudgeSelection(raw, JUDGE_ENV);
    } catch (error) {
      const { field: at, message } = error as Error & { field?: string };
      throw new InvalidConfig(
        where,
        at ?? JUDGE_ENV,
        message.replace(/^Invalid judge: "[^"]*" /, ""),
      );
    }
  }
  if (judge === undefined) return undefined;
  if (judge.credentialEnv !== undefined && !env[judge.credentialEnv]) {
    throw new InvalidConfig(
      where,
      `${field}.credentialEnv`,
      `names ${judge.credentialEnv}, which is not set: set it to the judge provider's API key (its value is never written anywhere).`,
    );
  }
  if (judge.provider === "run" && (!config.scriptedModel || env.M3_PROVIDER === "live")) {
    throw new InvalidConfig(
      where,
      `${field}.provider`,
      `is "run" (the run's scripted model), but ${env.M3_PROVIDER === "live" ? "this run is live (M3_PROVIDER=live)" : "no scriptedModel is configured"}: give the judge's provider as { name, baseUrl, wireApi }.`,
    );
  }
  return judge;
}

/**
 * The judge for a test that names none, in a worker: what global setup handed over, else
 * `M3_JUDGE`, else the run's provider under {@link DEFAULT_JUDGE_MODEL}.
 */
export function defaultJudge(env: Readonly<Record<string, string | undefined>>): JudgeSelection {
  const handed = env[RUN_JUDGE_ENV];
  if (handed !== undefined && handed !== "") {
    return checkJudgeSelection(JSON.parse(handed) as unknown, "judge");
  }
  const variable = env[JUDGE_ENV];
  if (variable !== undefined && variable.trim() !== "") {
    return checkJudgeSelection(JSON.parse(variable) as unknown, JUDGE_ENV);
  }
  return { provider: "run", model: DEFAULT_JUDGE_MODEL };
}
