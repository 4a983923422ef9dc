/**
 * A judge selection: which model judges, at which endpoint, in which dialect, with which
 * credential (by variable name). Checked once, with a message naming the field, before any
 * request; resolved against the run's provider when it says `provider: "run"`.
 */
import { z } from "zod";
import { PROVIDER_DIALECTS, type ProviderDialect } from "../harness/contract.js";
import { checkInput, describeValue } from "../validation/check-input.js";
import { httpUrl, must, nonEmptyString, positiveMs, strictFields } from "../validation/rules.js";
import { InvalidJudge } from "./errors.js";

/** A judge's endpoint: the shape an agent selection's provider takes. */
export interface JudgeProvider {
  /** An identifier (`[A-Za-z0-9_-]`), shown in verdicts. */
  readonly name: string;
  /** The base URL, as the vendor's SDK takes it (OpenAI-style dialects include `/v1`). */
  readonly baseUrl: string;
  readonly wireApi: ProviderDialect;
}

/**
 * Which model judges. `provider: "run"` is the run's own provider (with the jest-m3 preset
 * and a `scriptedModel` in m3.config.json: the run's scripted model), in the first dialect
 * it serves.
 *
 * @example
 * ```ts
 * const judge: JudgeSelection = {
 *   provider: { name: "openai", baseUrl: "https://api.example.com/v1", wireApi: "chat-completions" },
 *   model: "gpt-5.5",
 *   credentialEnv: "OPENAI_API_KEY",
 * };
 * ```
 */
export interface JudgeSelection {
  readonly provider: JudgeProvider | "run";
  readonly model: string;
  /** The variable holding the API key (its name only: the value is never written anywhere). */
  readonly credentialEnv?: string;
  /** How long the judge may take to answer, in ms (default 60 000). */
  readonly timeoutMs?: number;
}

/** A judge ready to be asked: its provider is concrete. */
export interface ResolvedJudge {
  readonly provider: JudgeProvider;
  readonly model: string;
  readonly credentialEnv?: string;
  readonly timeoutMs: number;
}

/** The default time a judge may take, in ms. */
export const JUDGE_TIMEOUT_MS = 60_000;

const providerSchema = strictFields(
  {
    name: z
      .string(must("letters, digits, _ or -"))
      .regex(/^[A-Za-z0-9_-]+$/, must("letters, digits, _ or -")),
    baseUrl: httpUrl.transform((url) => url.href.replace(/\/$/, "")),
    wireApi: z.enum(PROVIDER_DIALECTS as [ProviderDialect, ...ProviderDialect[]], {
      error: (issue) =>
        `must be a dialect (${PROVIDER_DIALECTS.join(", ")}), got ${describeValue(issue.input)}.`,
    }),
  },
  {
    unknown: "is not a judge provider field",
    listed: "the fields are",
    notAnObject: (received) =>
      `must be { name, baseUrl, wireApi } or "run" (the run's provider), got ${describeValue(received)}.`,
  },
);

const PROVIDER_MUST = (received: unknown) =>
  `must be { name, baseUrl, wireApi } or "run" (the run's provider), got ${describeValue(received)}.`;

/** The schema of a judge selection (a matcher's `judge` option, m3.config.json `judge`). */
export const judgeSelectionSchema = strictFields(
  {
    // "run", or checked by the provider's own schema (see checkJudgeSelection), so its
    // errors name the provider's field.
    provider: z.unknown().refine((value) => value !== undefined, {
      error: (issue) => PROVIDER_MUST(issue.input),
    }),
    model: nonEmptyString("a model name"),
    credentialEnv: z
      .string(must("the name of an environment variable holding the API key"))
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, must("the name of an environment variable"))
      .optional(),
    timeoutMs: positiveMs.optional(),
  },
  {
    unknown: "is not a judge field",
    listed: "the fields are",
    notAnObject: (received) =>
      `must be { provider, model, credentialEnv? }, got ${describeValue(received)}.`,
  },
);

/**
 * Checks a judge selection; `field` prefixes the field names in the message (`judge`).
 *
 * @throws {@link InvalidJudge} naming the field and what is wrong.
 */
export function checkJudgeSelection(input: unknown, field = "judge"): JudgeSelection {
  const checked = checkInput(
    judgeSelectionSchema,
    input,
    (problem) =>
      new InvalidJudge(problem.field === "" ? field : `${field}.${problem.field}`, problem.problem),
  );
  const refuse = (problem: { field: string; problem: string }) =>
    new InvalidJudge(
      problem.field === "" ? `${field}.provider` : `${field}.provider.${problem.field}`,
      problem.problem,
    );
  if (checked.provider === "run") return { ...checked, provider: "run" } as JudgeSelection;
  if (typeof checked.provider !== "object" || checked.provider === null) {
    throw refuse({ field: "", problem: PROVIDER_MUST(checked.provider) });
  }
  const provider = checkInput(providerSchema, checked.provider, refuse);
  return { ...checked, provider } as JudgeSelection;
}

/** What a judge needs of the run: its provider in a dialect, and the environment. */
export interface JudgeContext {
  /** The run's provider in the first of these dialects it serves (`M3Runtime.providerFor`). */
  readonly runProvider?: (dialects: readonly ProviderDialect[]) => JudgeProvider | undefined;
  /** Where `credentialEnv` is read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * A checked selection made concrete: `"run"` becomes the run's provider, and the credential
 * variable must be set. Nothing is sent.
 *
 * @throws {@link InvalidJudge} when the run has no provider or the credential is not set.
 */
export function resolveJudge(
  selection: JudgeSelection,
  context: JudgeContext = {},
  field = "judge",
): ResolvedJudge {
  let provider: JudgeProvider | undefined;
  if (selection.provider === "run") {
    provider = context.runProvider?.(PROVIDER_DIALECTS);
    if (provider === undefined) {
      throw new InvalidJudge(
        `${field}.provider`,
        'is "run", but this run has no provider: configure a scriptedModel in m3.config.json ' +
          "(with the jest-m3 preset), or give the judge's provider as { name, baseUrl, wireApi }.",
      );
    }
    provider = { name: provider.name, baseUrl: provider.baseUrl, wireApi: provider.wireApi };
  } else provider = selection.provider;
  const env = context.env ?? process.env;
  if (selection.credentialEnv !== undefined) {
    const value = env[selection.credentialEnv];
    if (value === undefined || value === "") {
      throw new InvalidJudge(
        `${field}.credentialEnv`,
        `names ${selection.credentialEnv}, which is not set: set it to the judge provider's API key, or remove credentialEnv for an endpoint that needs none.`,
      );
    }
  }
  return {
    provider,
    model: selection.model,
    ...(selection.credentialEnv === undefined ? {} : { credentialEnv: selection.credentialEnv }),
    timeoutMs: selection.timeoutMs ?? JUDGE_TIMEOUT_MS,
  };
}
