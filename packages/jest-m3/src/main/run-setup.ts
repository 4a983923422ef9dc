/**
 * The preset's `globalSetup`: a run id and a results folder, a readiness probe per
 * configured harness, and the shared scripted model, handed to workers through their
 * environment. A run whose tests cannot use the kit (the run plan, see `run-plan.ts`) gets
 * only its run folder: no model is started and no harness probed.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { type ModelProvider, type ProviderDialect, type Readiness } from "@jest-m3/core";
import type { ProbeCache } from "@jest-m3/core/harness";
import {
  describeCapability,
  harnessDialects,
  isUsable,
  readinessKeyFor,
  resolveHarness,
  locateHarness,
  stdioRelayLaunch,
  keepingAlive,
} from "@jest-m3/core/lean";
import { loadConfig, type M3Config } from "../shared/config.js";
import { configuredJudge, RUN_JUDGE_ENV } from "../shared/judge-config.js";
import { openProbeCache } from "../shared/probe-cache.js";
import { didYouMean, KNOWN_HARNESSES } from "./known-harnesses.js";
import { expandAgents, parseAgentsVariable, type MatrixAgentEntry } from "../shared/agent-list.js";
import {
  modelStepLines,
  progressEnabled,
  PROGRESS_ENV,
  type ModelStep,
} from "../shared/progress.js";
import {
  failsTheTest,
  MODEL_JOURNAL,
  MODEL_PROBLEMS,
  type ModelProblem,
} from "../shared/model-problems.js";
import { providersOf, RUN_ENV } from "../shared/hand-off.js";
import { KIT_UNUSED_ENV, kitUnusedByPlan } from "../shared/run-plan.js";
import { SHARED_SERVICES } from "./shared-services.js";
import { secretValuesOf } from "../shared/redact.js";
import { guardRun } from "./run-guard.js";
import { startRunWebServers } from "./web-servers.js";

interface JestGlobalConfig {
  readonly rootDir: string;
}

function statusLine(name: string, readiness: Readiness): string {
  const version = readiness.harness.version ?? "unknown version";
  if (readiness.ready) return `jest-m3: harness ${name} ${version} is ready`;
  const reasons = Object.entries(readiness.capabilities)
    .filter(([, capability]) => !isUsable(capability))
    .map(([name, capability]) => describeCapability(name, capability));
  return `jest-m3: harness ${name} ${version} is NOT ready:\n  - ${reasons.join("\n  - ")}`;
}

/** A configured harness name, resolved to its adapter or to why it could not be. */
type ResolvedName =
  | { readonly name: string; readonly harness: ReturnType<typeof resolveHarness> }
  | { readonly name: string; readonly error: Error };

/**
 * One harness's readiness probe: its answer and key, or its error (`refused` when readiness
 * itself threw: the harness refused the selection's options).
 */
type ProbeOutcome =
  | { readonly name: string; readonly key: string; readonly probe: Readiness }
  | { readonly name: string; readonly error: Error; readonly refused?: boolean };

/** One readiness probe to run: a harness with the options of a configured agent, or `{}`. */
interface ProbeTarget {
  readonly harness: ResolvedName;
  readonly options: Readonly<Record<string, unknown>>;
  readonly key: string;
}

const optionsKey = (name: string, options: Readonly<Record<string, unknown>> = {}): string =>
  JSON.stringify([name, options]);

/**
 * The probes to run: first one per harness (the one its workers are primed with), with `{}`
 * unless every configured agent of it has options, then once per other harness and options
 * of a configured agent, so that its harness checks those options before any test.
 */
function probeTargets(
  harnesses: readonly ResolvedName[],
  entries: readonly MatrixAgentEntry[],
  listed: readonly string[],
): ProbeTarget[] {
  const targets = new Map<string, ProbeTarget>();
  const add = (harness: ResolvedName, options: Readonly<Record<string, unknown>>): void => {
    const key = optionsKey(harness.name, options);
    if (!targets.has(key)) targets.set(key, { harness, options, key });
  };
  for (const harness of harnesses) {
    const own = entries.filter((entry) => entry.harness === harness.name);
    const bare = listed.includes(harness.name) || own.some((entry) => !hasOptions(entry));
    add(harness, bare ? {} : (own[0]?.options ?? {}));
  }
  for (const entry of entries) {
    const harness = harnesses.find((one) => one.name === entry.harness);
    if (harness !== undefined) add(harness, entry.options ?? {});
  }
  return [...targets.values()];
}

const hasOptions = (entry: MatrixAgentEntry): boolean =>
  Object.keys(entry.options ?? {}).length > 0;

/**
 * Stops the run, before any test, when a harness refused a configured agent's options (its
 * readiness threw): one line per agent, naming the entry and the option, with the fix.
 */
function stopOnRefusedAgents(
  entries: readonly MatrixAgentEntry[],
  outcomes: ReadonlyMap<string, ProbeOutcome>,
  where: { readonly config: M3Config; readonly variable: string | undefined },
): void {
  const source = where.config.source ?? "the configuration";
  const refusals = entries.flatMap((entry, index) => {
    const result = outcomes.get(optionsKey(entry.harness, entry.options ?? {}));
    if (result === undefined || !("error" in result) || result.refused !== true) return [];
    const option = (result.error as { option?: unknown }).option;
    const field = `agents[${index}].options${typeof option === "string" ? `.${option}` : ""}`;
    return [
      where.variable !== undefined
        ? `M3_AGENTS item "${entry.harness}=${entry.models.join(",")}": ${result.error.message} ` +
          `M3_AGENTS gives no options: list this agent in m3.config.json's "agents" with the options its harness needs.`
        : `${field} (${entry.harness}): ${result.error.message} Fix ${field} in ${source}.`,
    ];
  });
  if (refusals.length === 0) return;
  throw new Error(
    `jest-m3: ${refusals.length === 1 ? "an agent" : `${refusals.length} agents`} of the run's matrix refused by ${refusals.length === 1 ? "its harness" : "their harnesses"}; no test was started.\n  - ${refusals.join("\n  - ")}`,
  );
}

/** The part of the scripted model's journal this module uses. */
interface RunJournal {
  add(entry: never): {
    index: number;
    at: string;
    method: string;
    path: string;
    problem?: string;
    decision: { kind: string };
    conversation: { user: string } | null;
  };
  /** Hides the secrets the workers' kits handed out (they POST them to the model). */
  scrub<T>(value: T): T;
}

/**
 * Mirrors every request the run's scripted model answers with a problem (no rule matched,
 * a tool not offered) into the run folder as it happens, so the worker whose test sent
 * that turn can fail the test (setup-after-env). The model lives in this process; workers
 * only see the run folder.
 */
function journalIntoRun(journal: RunJournal, dir: string, progress: boolean): void {
  const add = journal.add.bind(journal);
  const started = Date.now();
  journal.add = ((entry: never) => {
    // What leaves this process is scrubbed of the secrets the workers told the model (a
    // credential a server echoed into a tool result the agent sent back).
    const added = add(entry);
    const full = journal.scrub(added);
    if (progress) {
      const lines = modelStepLines(full as unknown as ModelStep, Date.now() - started);
      if (lines.length > 0) process.stderr.write(`${lines.join("\n")}\n`);
    }
    if (full.problem !== undefined) {
      const problem: ModelProblem = {
        index: full.index,
        at: Date.parse(full.at),
        request: `${full.method} ${full.path}`,
        problem: full.problem,
        kind: full.decision.kind,
        user: full.conversation?.user ?? null,
      };
      appendFileSync(join(dir, MODEL_PROBLEMS), `${JSON.stringify(problem)}\n`);
    }
    return added;
  }) as RunJournal["add"];
}

/**
 * Throws the run-stopping error when `error` says nothing serves the harness `name`: a typo
 * must stop the run, with a did-you-mean and never a guessed package name.
 */
function stopOnUnknownHarness(
  error: unknown,
  name: string,
  config: M3Config,
  variable: string | undefined,
): void {
  if ((error as { code?: unknown }).code !== "M3_UNKNOWN_HARNESS") return;
  const guess = didYouMean(name);
  const where = variable ? "M3_AGENTS" : (config.source ?? "the configuration");
  throw new Error(
    `jest-m3: ${where} names the harness "${name}", which is not installed or registered.` +
      (guess ? ` Did you mean "${guess}"?` : "") +
      ` jest-m3's harnesses: ${KNOWN_HARNESSES.map((one) => `${one.name} (${one.packageName})`).join(", ")}, acp (@jest-m3/harness-acp).` +
      (guess ? "" : " A third-party harness comes from a package you install yourself."),
  );
}

/**
 * A configured harness name resolved to its adapter (nothing is started). A name nothing
 * resolves stops the run; another failure is kept for the run's readiness.
 */
function resolveName(name: string, config: M3Config, variable: string | undefined): ResolvedName {
  try {
    return { name, harness: resolveHarness(name, new Map(), process.env, config.rootDir) };
  } catch (error) {
    stopOnUnknownHarness(error, name, config, variable);
    return { name, error: error as Error };
  }
}

/**
 * A configured harness name only found, its module not loaded (a run that opens no
 * session). A name nothing resolves stops the run, as in {@link resolveName}.
 */
function locateName(name: string, config: M3Config, variable: string | undefined): void {
  try {
    locateHarness(name, process.env, config.rootDir);
  } catch (error) {
    stopOnUnknownHarness(error, name, config, variable);
  }
}

/**
 * A path as the run's records show it: relative to the project, so a report or a shared
 * blob names no folder of the machine it ran on (absolute only outside the project).
 */
function shown(config: M3Config, path: string): string {
  const inside = relative(config.rootDir, path);
  return inside && !inside.startsWith("..") ? inside : path;
}

/** Creates this run's folder under the results folder and hands it to the workers. */
function createRunFolder(config: M3Config): { runId: string; dir: string } {
  const runId = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
  const dir = join(config.resultsDir, "runs", runId);
  mkdirSync(join(dir, "executions"), { recursive: true });
  mkdirSync(join(dir, "processes"), { recursive: true });
  mkdirSync(join(dir, "dirs"), { recursive: true });
  guardRun(join(config.resultsDir, "runs"), dir);
  process.env[RUN_ENV.runId] = runId;
  process.env[RUN_ENV.runDir] = dir;
  return { runId, dir };
}

export default async function globalSetup(globalConfig: JestGlobalConfig): Promise<void> {
  const config = loadConfig(globalConfig.rootDir);
  // The judge toPassJudge asks (M3_JUDGE over m3.config.json judge), checked before anything starts.
  const judge = configuredJudge(config, process.env);
  if (judge) process.env[RUN_JUDGE_ENV] = JSON.stringify(judge);
  else delete process.env[RUN_JUDGE_ENV];
  const { runId, dir } = createRunFolder(config);
  // The price table the workers cost each session by (none is built in).
  if (config.prices) process.env[RUN_ENV.prices] = JSON.stringify(config.prices);
  else delete process.env[RUN_ENV.prices];

  // Progress lines: decided here, where Jest's terminal is; workers inherit the choice.
  const progress = progressEnabled(process.env, process.stderr.isTTY === true);
  process.env[PROGRESS_ENV] = progress ? "1" : "0";

  // The run's agents: M3_AGENTS (a CI job's choice) over m3.config.json's agents.
  const variable = process.env.M3_AGENTS;
  const agentEntries =
    variable !== undefined && variable.trim() !== ""
      ? parseAgentsVariable(variable)
      : (config.agents ?? []);
  const probed = [...new Set([...config.harnesses, ...agentEntries.map((entry) => entry.harness)])];
  // The run's web servers, first: the configuration asks for them whether or not a test
  // imports the kit (a test may call the URL it names), and one that does not come up stops
  // the run before any probe or test.
  await startRunWebServers(config.webServers, dir);
  // A run whose tests cannot use the kit: nothing to start, nothing to probe, no adapter
  // loaded; every name is still found, so a typo stops the run.
  if (kitUnusedByPlan()) {
    for (const name of probed) locateName(name, config, variable);
    process.env[KIT_UNUSED_ENV] = "1";
    writeRunFile(dir, {
      runId,
      provider: null,
      readiness: {},
      agents: [],
      config: config.source && shown(config, config.source),
    });
    return;
  }
  delete process.env[KIT_UNUSED_ENV];
  // Checked here, before the workers start: a Node relay standing in is said once per run.
  stdioRelayLaunch();
  // Every name resolved first (no process started), so a typo stops the run.
  const harnesses = probed.map((name) => resolveName(name, config, variable));

  let provider: string | null = null;
  let sharedProvider: ModelProvider | undefined;
  let sharedProviderMap: Partial<Record<ProviderDialect, ModelProvider>> | undefined;
  const live = process.env.M3_PROVIDER === "live";
  if (live) {
    provider = "live: the harness's own login or credentials (M3_PROVIDER=live)";
    console.log(`\njest-m3: model provider: ${provider}`);
  } else if (config.scriptedModel) {
    let scripted: typeof import("@jest-m3/scripted-model");
    try {
      scripted = await import("@jest-m3/scripted-model");
    } catch {
      throw new Error(
        "jest-m3: the configuration asks for a scripted model, but @jest-m3/scripted-model is not installed. " +
          "Run: npm install --save-dev @jest-m3/scripted-model",
      );
    }
    const model = await scripted.startScriptedModel(config.scriptedModel.script);
    // The credential-named variables of this environment; the workers add what their kits
    // hand out (setup-after-env), so the journal holds none of them.
    for (const { name, value } of secretValuesOf()) model.journal.addSecret(name, value);
    journalIntoRun(model.journal, dir, progress);
    SHARED_SERVICES.push(async () => {
      await model.close();
      // The whole journal, for the user to read: every request, its decision, its problem.
      model.journal.writeTo(join(dir, MODEL_JOURNAL));
      const problems = model.journal
        .scrub([...model.journal.entries])
        .filter((entry) => entry.problem !== undefined && failsTheTest(entry.decision.kind))
        .map(
          (entry) => `request #${entry.index} (${entry.method} ${entry.path}): ${entry.problem}`,
        );
      if (problems.length > 0) {
        console.warn(
          `\njest-m3: the run's scripted model had ${problems.length} problem(s) with its script:\n  ${problems
            .slice(0, 5)
            .join(
              "\n  ",
            )}${problems.length > 5 ? "\n  …" : ""}\nIts journal: ${join(dir, MODEL_JOURNAL)}`,
        );
      }
    });
    process.env[RUN_ENV.scriptedProvider] = JSON.stringify(model.provider);
    sharedProviderMap = providersOf(model);
    process.env[RUN_ENV.scriptedProviders] = JSON.stringify(sharedProviderMap);
    sharedProvider = model.provider;
    for (const [name, value] of Object.entries(config.scriptedModel.env))
      process.env[name] ??= value;
    provider = `scripted model at ${model.provider.baseUrl} (offline, from ${shown(config, config.scriptedModel.script)})`;
    console.log(`\njest-m3: model provider: ${provider}`);
  } else {
    provider =
      "each selection's own provider, credentials, or the harness's login (no scriptedModel configured)";
  }

  // One probe per configured harness; workers receive it through run.json and do not probe
  // again for sessions with the same readiness key.
  const readiness: Record<string, { key: string; readiness: Readiness } | { error: string }> = {};
  // A project that names no agent (direct tests only) hears nothing about models.
  if (!live && !config.scriptedModel && probed.length > 0) {
    console.log(`\njest-m3: model provider: ${provider}`);
  }
  // The probes run side by side (each runs its agent's binary, seconds apiece: in a row
  // they added up to most of a run's start), and their lines are printed in order.
  const probeCache = openProbeCache(config.resultsDir);
  // The workers probe what global setup did not (other options, another executable) with
  // the same file.
  if (probeCache) process.env[RUN_ENV.probeCache] = config.resultsDir;
  else delete process.env[RUN_ENV.probeCache];
  const fromCache = new Set<string>();
  const probe = async (
    entry: ResolvedName,
    options: Readonly<Record<string, unknown>>,
  ): Promise<ProbeOutcome> => {
    if ("error" in entry) return entry;
    const { name, harness } = entry;
    // What this harness took from the cache, to say so on its line.
    const cache: ProbeCache | undefined = probeCache && {
      get: (key) => {
        const value = probeCache.get(key);
        if (value !== undefined) fromCache.add(name);
        return value;
      },
      set: (key, value) => probeCache.set(key, value),
    };
    try {
      // The shared model in this harness's dialect, as a session of it will get it.
      const shared = sharedProviderMap
        ? harnessDialects(harness)
            .map((dialect) => sharedProviderMap[dialect])
            .find((one) => one !== undefined)
        : sharedProvider;
      const context = {
        selection: {
          harness: name,
          model: "readiness-probe",
          name,
          credentialEnv: {},
          options,
          ...(shared ? { provider: shared } : {}),
        },
        config: process.env,
        credentialNames: [],
        ...(cache ? { probeCache: cache } : {}),
      };
      const answer = await keepingAlive(harness.readiness(context));
      return { name, key: readinessKeyFor(harness, context), probe: answer };
    } catch (error) {
      return { name, error: error as Error, refused: true };
    }
  };
  // Each configured agent's options go through its harness's readiness too, which checks
  // them before it starts anything: a misspelt option stops the run here, not every test.
  const targets = probeTargets(harnesses, agentEntries, config.harnesses);
  const answers = await Promise.all(targets.map((target) => probe(target.harness, target.options)));
  const byKey = new Map(targets.map((target, index) => [target.key, answers[index]!]));
  stopOnRefusedAgents(agentEntries, byKey, { config, variable });
  // The first target of each harness is the probe its workers get.
  const probes = harnesses.map(
    (harness) => answers[targets.findIndex((target) => target.harness === harness)]!,
  );
  for (const outcome of probes) {
    if ("error" in outcome) {
      readiness[outcome.name] = { error: outcome.error.message };
      console.log(`jest-m3: harness ${outcome.name}: ${outcome.error.message}`);
    } else {
      readiness[outcome.name] = { key: outcome.key, readiness: outcome.probe };
      const cached = fromCache.has(outcome.name)
        ? " (probe answers cached: the binary is unchanged since an earlier run; M3_PROBE_CACHE=off probes it again)"
        : "";
      console.log(`${statusLine(outcome.name, outcome.probe)}${cached}`);
    }
  }
  try {
    probeCache?.save();
  } catch (error) {
    console.log(`jest-m3: the probe cache was not saved: ${(error as Error).message}`);
  }
  const versions = Object.fromEntries(
    Object.entries(readiness).map(([name, entry]) => [
      name,
      "readiness" in entry ? entry.readiness.harness.version : null,
    ]),
  );
  const runAgents = expandAgents(agentEntries, versions);
  if (runAgents.length > 0) {
    process.env[RUN_ENV.agents] = JSON.stringify(runAgents);
    console.log(
      `jest-m3: agents (${variable ? "M3_AGENTS" : "m3.config.json"}): ${runAgents
        .map((agent) => `${agent.label}${agent.trials > 1 ? ` ×${agent.trials}` : ""}`)
        .join(", ")}`,
    );
  }
  writeRunFile(dir, {
    runId,
    provider,
    readiness,
    agents: runAgents,
    config: config.source && shown(config, config.source),
  });
}

/** run.json: what the workers and the reporter read about the run. */
function writeRunFile(dir: string, run: Record<string, unknown>): void {
  writeFileSync(join(dir, "run.json"), JSON.stringify(run, null, 2));
}
