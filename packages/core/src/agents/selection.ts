import { z } from "zod";
import { InvalidSelection } from "../errors.js";
import { checkInput, describeValue } from "../validation/check-input.js";
import { httpUrl, modelName, must, nonEmptyString, strictFields } from "../validation/rules.js";
import { INHERITED_ENV } from "../processes/environment.js";
import { harnessDialects } from "../harness/dialects.js";
import {
  PROVIDER_DIALECTS,
  type HarnessDefinition,
  type ModelProvider,
  type ProviderDialect,
  type SelectionSpec,
} from "../harness/contract.js";

/**
 * What a test asks for: a harness and one or more models. `kit.agents()` expands it into
 * one {@link AgentSelection} per model (× trials).
 *
 * @example
 * ```ts
 * const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"], credentialEnv: { OPENAI_API_KEY: "MY_KEY" } }]);
 * ```
 */
export interface AgentSelectionInput {
  readonly harness: string;
  readonly models: readonly string[];
  /** A display name; defaults to `harness:model`. */
  readonly name?: string;
  /** The harness executable, when not the adapter's default. */
  readonly executable?: string;
  /**
   * Credentials to copy into the harness's environment, `{ CHILD: "PARENT" }`: the value of
   * the parent variable `PARENT` becomes `CHILD` in the child. Only names are ever written.
   */
  readonly credentialEnv?: Readonly<Record<string, string>>;
  /** A Responses-compatible model endpoint (the scripted model, a local server, a proxy). */
  readonly provider?: ModelProvider;
  /** Adapter-specific options. */
  readonly options?: Readonly<Record<string, unknown>>;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `credentialEnv`: child variable names (not the host-inherited ones) to parent names. */
const credentialEnvSchema = z
  .record(
    z.string(),
    nonEmptyString("the name of a parent environment variable"),
    must('an object { CHILD_NAME: "PARENT_NAME" }'),
  )
  .superRefine((credentialEnv, context) => {
    for (const child of Object.keys(credentialEnv)) {
      if (!VARIABLE_NAME.test(child)) {
        context.addIssue({
          code: "custom",
          path: [child],
          message: "is not a variable name (letters, digits and _, not starting with a digit).",
        });
      } else if ((INHERITED_ENV as readonly string[]).includes(child)) {
        context.addIssue({
          code: "custom",
          path: [child],
          message: `names ${child}, which the harness's environment already takes from the host; map credentials to their own variables (e.g. OPENAI_API_KEY).`,
        });
      }
    }
  });

/** An explicit provider's fields (its dialect is checked against the harness after). */
const providerSchema = strictFields(
  {
    name: z
      .string(must("letters, digits, _ or -"))
      .regex(/^[A-Za-z0-9_-]+$/, must("letters, digits, _ or -")),
    baseUrl: httpUrl,
    wireApi: z.string(must(`a dialect (${PROVIDER_DIALECTS.join(", ")})`)),
    envKey: z.string(must("the name of a child variable mapped in credentialEnv")).optional(),
  },
  {
    unknown: "is not a provider field",
    listed: "the fields are",
    notAnObject: (received) =>
      `must be { name, baseUrl, wireApi }, got ${describeValue(received)}.`,
  },
);

const MODEL_FIX =
  " Give at least one model name: a literal, or a variable your run sets (models: [process.env.MY_MODEL!]).";

/** One entry of `kit.agents([...])`, with the rules between its fields. */
export const selectionSchema = strictFields(
  {
    harness: nonEmptyString("a harness name (one an installed or registered adapter answers to)"),
    models: z
      .array(
        modelName((received) =>
          received === undefined
            ? " If the name comes from an environment variable, that variable is not set."
            : "",
        ),
        must("a non-empty array of model names", () => MODEL_FIX),
      )
      .min(
        1,
        must("a non-empty array of model names", () => MODEL_FIX),
      ),
    name: nonEmptyString().optional(),
    executable: nonEmptyString("a path to the harness executable").optional(),
    credentialEnv: credentialEnvSchema.optional(),
    provider: providerSchema.optional(),
    options: z.record(z.string(), z.unknown(), must("an object")).optional(),
  },
  {
    unknown: "is not a selection field",
    listed: "the fields are",
    notAnObject: (received) =>
      `must be an object like { harness, models }, got ${describeValue(received)}.`,
  },
).superRefine((selection, context) => {
  const envKey = selection.provider?.envKey;
  if (envKey !== undefined && !(envKey in (selection.credentialEnv ?? {}))) {
    context.addIssue({
      code: "custom",
      path: ["provider", "envKey"],
      message: `must name a child variable mapped in credentialEnv, got ${describeValue(envKey)}.`,
    });
  }
});

/**
 * Checks one selection input and expands it into one spec per model. Reads the parent
 * environment only to check that credential source variables are set (never copying values).
 *
 * @throws {@link InvalidSelection} naming the selection and the field.
 */
export function expandSelection(
  input: unknown,
  index: number,
  parentEnv: Readonly<Record<string, string | undefined>>,
  knownHarness: (name: string) => HarnessDefinition,
  runProvider: (dialects: readonly ProviderDialect[]) => ModelProvider | undefined = () =>
    undefined,
): { specs: SelectionSpec[]; harness: HarnessDefinition } {
  const selection = checkInput(
    selectionSchema,
    input,
    (problem) => new InvalidSelection(index, problem.field || "(selection)", problem.problem),
  );
  const { harness, models, name, executable, options } = selection;
  const credentials = selection.credentialEnv ?? {};
  // What the schema cannot know: the parent's environment and the harness's dialects.
  for (const [child, parent] of Object.entries(credentials)) {
    if (parentEnv[parent] === undefined || parentEnv[parent] === "") {
      throw new InvalidSelection(
        index,
        `credentialEnv.${child}`,
        `names the environment variable ${parent}, which is not set. Set ${parent} (export ${parent}=...) or remove the mapping.`,
      );
    }
  }
  const definition = knownHarness(harness);
  let provider: ModelProvider | undefined;
  if (selection.provider !== undefined) {
    const spoken = harnessDialects(definition);
    const { wireApi } = selection.provider;
    if (!spoken.includes(wireApi as ProviderDialect)) {
      throw new InvalidSelection(
        index,
        "provider.wireApi",
        `must be a dialect the "${harness}" harness speaks (${spoken.map((d) => `"${d}"`).join(", ")}), got ${describeValue(wireApi)}. ` +
          `Dialects jest-m3 knows: ${PROVIDER_DIALECTS.join(", ")}.`,
      );
    }
    // The provider as given (its baseUrl a string, as the vendor's SDK takes it).
    provider = (input as { provider: ModelProvider }).provider;
  }
  // A selection without a provider takes the run's, in its harness's dialect, when the
  // runner configured one.
  provider ??= runProvider(harnessDialects(definition));
  return {
    harness: definition,
    specs: models.map((model) => ({
      harness,
      model,
      name: name ?? `${harness}:${model}`,
      ...(executable ? { executable } : {}),
      credentialEnv: { ...credentials },
      ...(provider ? { provider } : {}),
      options: { ...(options ?? {}) },
    })),
  };
}
