/**
 * Which agents a run tests, chosen outside the test files: `agents` in m3.config.json,
 * overridden for a CI job by the `M3_AGENTS` environment variable.
 */
import { z } from "zod";
import { M3Error } from "@jest-m3/core/lean";
import { checkInput, modelName, must, strictFields } from "@jest-m3/core/validation";

/**
 * One agent of the run's matrix: a harness with one model, run `trials` times.
 *
 * @example
 * ```json
 * { "agents": [{ "harness": "codex", "models": ["gpt-5.5"], "trials": 3 }] }
 * ```
 */
export interface MatrixAgentEntry {
  readonly harness: string;
  readonly models: readonly string[];
  /** Runs of each test per model (default 1). */
  readonly trials?: number;
  /** Adapter options, passed to the selection untouched. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/** One agent × model of the matrix, as a test sees it. */
export interface MatrixAgent {
  readonly harness: string;
  readonly model: string;
  readonly trials: number;
  readonly options: Readonly<Record<string, unknown>>;
  /** The harness's version as global setup's readiness probe found it, when it probed. */
  readonly version: string | null;
  /** `harness version model`, as it appears in test names (so `-t codex` selects one). */
  readonly label: string;
  /** The selection to give `kit.agents([...])`. */
  readonly selection: {
    readonly harness: string;
    readonly models: readonly string[];
    readonly options?: Readonly<Record<string, unknown>>;
  };
}

/** The agent list is malformed; nothing was started. The message says what and where. */
export class InvalidAgentList extends M3Error {
  override readonly code = "M3_INVALID_AGENT_LIST";
  constructor(source: string, problem: string) {
    super(`Agent list (${source}): ${problem}`);
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;

const TRIALS = {
  error: (issue: { readonly input?: unknown }) =>
    `must be a whole number from 1 to 1000, got ${JSON.stringify(issue.input)}.`,
};

/** One entry of the `agents` setting. */
const agentEntrySchema = strictFields(
  {
    harness: z
      .string(must('a harness name such as "codex"'))
      .regex(NAME, must('a harness name such as "codex"')),
    models: z
      .array(modelName(), must("a non-empty array of model names"))
      .min(1, must("a non-empty array of model names")),
    trials: z.int(TRIALS).min(1, TRIALS).max(1000, TRIALS).optional(),
    options: z.record(z.string(), z.unknown(), must("an object")).optional(),
  },
  {
    unknown: "is not a field",
    listed: "the fields are",
    notAnObject: () => "must be an object { harness, models, trials? }.",
  },
);

/** The `agents` setting of m3.config.json. */
export const agentListSchema = z
  .array(agentEntrySchema, {
    error: (issue) =>
      `must be a non-empty array like [{ "harness": "codex", "models": ["gpt-5.5"] }], got ${JSON.stringify(issue.input)}.`,
  })
  .min(1, {
    error: (issue) =>
      `must be a non-empty array like [{ "harness": "codex", "models": ["gpt-5.5"] }], got ${JSON.stringify(issue.input)}.`,
  });

/**
 * Checks the `agents` setting of m3.config.json.
 *
 * @throws {@link InvalidAgentList} naming the entry and the field.
 */
export function parseAgentEntries(raw: unknown, source: string): MatrixAgentEntry[] {
  const entries = checkInput(
    agentListSchema,
    raw,
    (problem) => new InvalidAgentList(source, `agents${problem.field} ${problem.problem}`),
  );
  const seen = new Map<string, string>();
  entries.forEach((entry, index) =>
    entry.models.forEach((model, at) => {
      const key = JSON.stringify([entry.harness, model]);
      const here = `agents[${index}].models[${at}]`;
      const first = seen.get(key);
      if (first !== undefined) {
        throw new InvalidAgentList(
          source,
          `${here} repeats harness "${entry.harness}" with model "${model}" (as ${first}): each agent runs once per test, and their tests would have the same name. ` +
            'Give it once; to run it more often, give it trials (e.g. "trials": 3).',
        );
      }
      seen.set(key, here);
    }),
  );
  return entries.map((entry) => ({ ...entry, trials: entry.trials ?? 1 }));
}

/**
 * Parses `M3_AGENTS`: comma-separated `harness=model` items, each optionally followed by
 * `*N` for N trials. A harness may appear several times (one item per model).
 *
 * @example
 * ```sh
 * M3_AGENTS="codex=gpt-5.5,claude-code=claude-sonnet-5-5*3" npx jest
 * ```
 *
 * @throws {@link InvalidAgentList} naming the item and the expected syntax.
 */
export function parseAgentsVariable(value: string, source = "M3_AGENTS"): MatrixAgentEntry[] {
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  if (items.length === 0) {
    throw new InvalidAgentList(
      source,
      'is empty; write "harness=model[*trials],..." e.g. "codex=gpt-5.5".',
    );
  }
  const seen = new Map<string, string>();
  return items.map((item) => {
    const match = /^([^=*\s]+)=([^=*\s]+)(?:\*(\d+))?$/.exec(item);
    if (!match || !NAME.test(match[1]!) || !NAME.test(match[2]!)) {
      throw new InvalidAgentList(
        source,
        `item ${JSON.stringify(item)} is not "harness=model" or "harness=model*trials" (e.g. "codex=gpt-5.5*3").`,
      );
    }
    const agent = `${match[1]!}=${match[2]!}`;
    const first = seen.get(agent);
    if (first !== undefined) {
      throw new InvalidAgentList(
        source,
        `item ${JSON.stringify(item)} repeats ${JSON.stringify(first)}: each agent runs once per test, and their tests would have the same name. ` +
          `Give it once; to run it more often, give it trials ("${agent}*3").`,
      );
    }
    seen.set(agent, item);
    const trials = match[3] === undefined ? 1 : Number(match[3]);
    checkInput(
      agentEntrySchema,
      { harness: match[1]!, models: [match[2]!], trials },
      (problem) => new InvalidAgentList(source, `${item}: ${problem.field} ${problem.problem}`),
    );
    return { harness: match[1]!, models: [match[2]!], trials };
  });
}

/**
 * The run's agents, one per harness × model, with display labels.
 *
 * @param versions - Harness versions by name, from global setup's readiness probes.
 */
export function expandAgents(
  entries: readonly MatrixAgentEntry[],
  versions: Readonly<Record<string, string | null>> = {},
): MatrixAgent[] {
  return entries.flatMap((entry) =>
    entry.models.map((model) => {
      const version = versions[entry.harness] ?? null;
      return {
        harness: entry.harness,
        model,
        trials: entry.trials ?? 1,
        options: entry.options ?? {},
        version,
        label: [entry.harness, version, model].filter(Boolean).join(" "),
        selection: {
          harness: entry.harness,
          models: [model],
          ...(entry.options ? { options: entry.options } : {}),
        },
      };
    }),
  );
}
