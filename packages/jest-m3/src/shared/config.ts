import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { M3Error } from "@jest-m3/core/lean";
import {
  checkInput,
  checkJudgeSelection,
  must,
  nonEmptyString,
  strictFields,
  type JudgeSelection,
} from "@jest-m3/core/validation";
import type { PriceTable } from "@jest-m3/core";
import { parseAgentEntries, type MatrixAgentEntry } from "./agent-list.js";
import { parseWebServers, type WebServerEntry } from "./web-servers.js";

/**
 * jest-m3's configuration, in one place the user controls: `m3.config.json` next to the
 * Jest configuration, or a `"jest-m3"` key in package.json.
 *
 * @example
 * ```json
 * { "resultsDir": ".m3", "harnesses": ["codex"], "scriptedModel": { "script": "test/model-script.json" } }
 * ```
 */
export interface M3Config {
  /** Where runs write their results (default `.m3`); each run gets `runs/<run-id>`. */
  readonly resultsDir: string;
  /**
   * How many run folders `<resultsDir>/runs` keeps (default 20): after a run is recorded,
   * older ones are removed (never the current run, one in progress or one being served);
   * the history keeps every run.
   */
  readonly keepRuns: number;
  /** Harnesses whose readiness is probed once, before any test runs. */
  readonly harnesses: readonly string[];
  /**
   * The agents `describeAgents()` fans tests out over (the `M3_AGENTS` variable overrides
   * it): `[{ harness, models, trials?, options? }]`. Their harnesses are probed too.
   */
  readonly agents?: readonly MatrixAgentEntry[];
  /**
   * A scripted model server started once for the whole run, from a script file. Tests
   * find its provider with `scriptedProvider()`.
   */
  readonly scriptedModel?: {
    readonly script: string;
    /** Variables set for the tests when the scripted model serves the run (e.g. a model name). */
    readonly env: Readonly<Record<string, string>>;
  };
  /**
   * The judge `toPassJudge` asks when a test names none (the `M3_JUDGE` variable overrides
   * it): `{ provider: { name, baseUrl, wireApi } | "run", model, credentialEnv? }`.
   */
  readonly judge?: JudgeSelection;
  /**
   * Your price table, per model as its requests name it: `{ "<model>": { inputPerMillion,
   * outputPerMillion, cachedInputPerMillion? } }`, in a currency of your choosing. The report
   * shows each session's cost from it; none is built in, and a model without a price is
   * shown as unavailable, never 0.
   */
  readonly prices?: PriceTable;
  /**
   * Server commands started once for the run, before any test, and stopped after the last
   * (Playwright Test's `webServer`): `[{ name, command, args?, url, timeoutMs?, env?, cwd?,
   * reuseExisting? }]`. Global setup waits until each `url` answers; tests read it with
   * `webServerUrl(name)`.
   */
  readonly webServers: readonly WebServerEntry[];
  /**
   * What global teardown does when a process started by the suite outlived its kit: kill it
   * and fail the run (`fail`, the default), or kill it and warn.
   */
  readonly orphans: "fail" | "warn";
  /** The file the configuration came from, or null for defaults. */
  readonly source: string | null;
  /** The directory relative paths resolve against. */
  readonly rootDir: string;
}

/** A configuration value is wrong. The message names the key and the file. */
export class InvalidConfig extends M3Error {
  constructor(source: string, key: string, problem: string) {
    super(`jest-m3 configuration (${source}): "${key}" ${problem}`);
  }
}

const SETTINGS = { unknown: "is not a setting", listed: "the settings are" };

/** `scriptedModel`: the script to serve and the variables it sets. */
const scriptedModelSchema = strictFields(
  {
    script: nonEmptyString("the path of a script file (JSON)"),
    env: z.record(z.string(), z.string(), must("an object of strings")).optional(),
  },
  SETTINGS,
);

/** The schema of m3.config.json (or the `"jest-m3"` key of package.json). */
export const configSchema = strictFields(
  {
    resultsDir: nonEmptyString("a non-empty path").optional(),
    keepRuns: z
      .int(must("a whole number of run folders, e.g. 20"))
      .min(1, must("1 or more (the current run is always kept)"))
      .optional(),
    harnesses: z
      .array(nonEmptyString(), must('an array of harness names, e.g. ["codex"]'))
      .optional(),
    // Checked by the agent list's own schema, whose errors say where in the list.
    agents: z.unknown().optional(),
    scriptedModel: scriptedModelSchema.optional(),
    // Checked by the judge selection's own schema, whose errors name the field.
    judge: z.unknown().optional(),
    // Checked by the web server options' own schema, whose errors name the entry and field.
    webServers: z.unknown().optional(),
    orphans: z.enum(["fail", "warn"], must('"fail" or "warn"')).optional(),
    // Your price table by model (none is built in): the report's cost per session.
    prices: z
      .record(
        nonEmptyString("a model name"),
        strictFields(
          {
            inputPerMillion: z.number(must("a number")).min(0, must("0 or more")),
            outputPerMillion: z.number(must("a number")).min(0, must("0 or more")),
            cachedInputPerMillion: z.number(must("a number")).min(0, must("0 or more")).optional(),
          },
          SETTINGS,
        ),
        must(
          'an object of prices by model, e.g. { "gpt-5.5": { "inputPerMillion": 1.25, "outputPerMillion": 10 } }',
        ),
      )
      .optional(),
  },
  { ...SETTINGS, notAnObject: () => "must be an object." },
);

function validate(raw: unknown, source: string, rootDir: string): M3Config {
  const config = checkInput(
    configSchema,
    raw,
    (problem) => new InvalidConfig(source, problem.field || "(root)", problem.problem),
  );
  let agentEntries: MatrixAgentEntry[] | undefined;
  if (config.agents !== undefined) {
    try {
      agentEntries = parseAgentEntries(config.agents, source);
    } catch (error) {
      throw new InvalidConfig(source, "agents", (error as Error).message);
    }
  }
  let judge: JudgeSelection | undefined;
  if (config.judge !== undefined) {
    try {
      judge = checkJudgeSelection(config.judge);
    } catch (error) {
      const { field, message } = error as Error & { field?: string };
      throw new InvalidConfig(
        source,
        field ?? "judge",
        message.replace(/^Invalid judge: "[^"]*" /, ""),
      );
    }
  }
  const webServers =
    config.webServers === undefined
      ? []
      : parseWebServers(
          config.webServers,
          rootDir,
          (key, problem) => new InvalidConfig(source, key, problem),
        );
  let model: M3Config["scriptedModel"];
  if (config.scriptedModel !== undefined) {
    // The one check against the disk, after the shape is right.
    const { script, env = {} } = config.scriptedModel;
    if (!existsSync(resolve(rootDir, script))) {
      throw new InvalidConfig(
        source,
        "scriptedModel.script",
        `names ${JSON.stringify(script)}, which does not exist.`,
      );
    }
    model = { script: resolve(rootDir, script), env };
  }
  return {
    resultsDir: resolve(rootDir, config.resultsDir ?? ".m3"),
    keepRuns: config.keepRuns ?? 20,
    harnesses: config.harnesses ?? [],
    ...(agentEntries ? { agents: agentEntries } : {}),
    ...(model ? { scriptedModel: model } : {}),
    ...(judge ? { judge } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
    orphans: config.orphans ?? "fail",
    webServers,
    source,
    rootDir,
  };
}

/** `:line:column` of a JSON.parse error in `text` (from its position), or "" without one. */
function jsonErrorPlace(text: string, message: string): string {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return `:${lineColumn[1]}:${lineColumn[2]}`;
  const position = /at position (\d+)/.exec(message);
  if (!position) return text.trim() === "" ? ":1:1" : "";
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  return `:${line}:${before.length - before.lastIndexOf("\n")}`;
}

/**
 * Loads the configuration for a project rooted at `rootDir`: `m3.config.json` there, else
 * the `"jest-m3"` key of its package.json, else defaults.
 *
 * @throws {@link InvalidConfig} naming the bad key.
 */
export function loadConfig(rootDir: string): M3Config {
  const file = join(rootDir, "m3.config.json");
  if (existsSync(file)) {
    let raw: unknown;
    const text = readFileSync(file, "utf8");
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new InvalidConfig(
        `${file}${jsonErrorPlace(text, (error as Error).message)}`,
        "(file)",
        `is not valid JSON: ${(error as Error).message.replace(/ in JSON at position \d+.*$/, "")}`,
      );
    }
    return validate(raw, file, dirname(file));
  }
  const manifest = join(rootDir, "package.json");
  if (existsSync(manifest)) {
    const raw = (JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>)["jest-m3"];
    if (raw !== undefined) return validate(raw, `${manifest} "jest-m3"`, rootDir);
  }
  return validate({}, "defaults", rootDir);
}
