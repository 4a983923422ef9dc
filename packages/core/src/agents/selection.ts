import { InvalidSelection } from "../errors.js";
import { INHERITED_ENV } from "../processes/environment.js";
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

/** An http(s) URL with a host. */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** The dialects a harness speaks, preferred first (`responses` when it declares none). */
export function harnessDialects(harness: HarnessDefinition): readonly ProviderDialect[] {
  return harness.dialects && harness.dialects.length > 0 ? harness.dialects : ["responses"];
}

const KEYS = ["harness", "models", "name", "executable", "credentialEnv", "provider", "options"];
const PROVIDER_KEYS = ["name", "baseUrl", "wireApi", "envKey"];

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return value === "" ? "an empty string" : JSON.stringify(value);
  return Array.isArray(value) ? "an array" : `${typeof value} ${JSON.stringify(value)}`;
}

/** Checks `credentialEnv`: an object of child names to parent variables that are set. */
function checkCredentials(
  index: number,
  credentialEnv: unknown,
  parentEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const credentials: Record<string, string> = {};
  if (credentialEnv !== undefined) {
    if (
      typeof credentialEnv !== "object" ||
      credentialEnv === null ||
      Array.isArray(credentialEnv)
    ) {
      throw new InvalidSelection(
        index,
        "credentialEnv",
        `must be an object { CHILD_NAME: "PARENT_NAME" }, got ${describe(credentialEnv)}.`,
      );
    }
    for (const [child, parent] of Object.entries(credentialEnv)) {
      if (!VARIABLE_NAME.test(child) || (INHERITED_ENV as readonly string[]).includes(child)) {
        throw new InvalidSelection(
          index,
          `credentialEnv.${child}`,
          VARIABLE_NAME.test(child)
            ? `names ${child}, which the harness's environment already takes from the host; map credentials to their own variables (e.g. OPENAI_API_KEY).`
            : "is not a variable name (letters, digits and _, not starting with a digit).",
        );
      }
      if (typeof parent !== "string" || parent === "") {
        throw new InvalidSelection(
          index,
          `credentialEnv.${child}`,
          `must name a parent environment variable, got ${describe(parent)}.`,
        );
      }
      if (parentEnv[parent] === undefined || parentEnv[parent] === "") {
        throw new InvalidSelection(
          index,
          `credentialEnv.${child}`,
          `names the environment variable ${parent}, which is not set. Set ${parent} (export ${parent}=...) or remove the mapping.`,
        );
      }
      credentials[child] = parent;
    }
  }
  return credentials;
}

/** Checks an explicit provider: its fields, and a dialect the harness speaks. */
function checkProvider(
  index: number,
  provider: unknown,
  harness: string,
  spoken: readonly ProviderDialect[],
  credentials: Readonly<Record<string, string>>,
): ModelProvider {
  if (typeof provider !== "object" || provider === null) {
    throw new InvalidSelection(
      index,
      "provider",
      `must be { name, baseUrl, wireApi }, got ${describe(provider)}.`,
    );
  }
  const record = provider as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!PROVIDER_KEYS.includes(key)) {
      throw new InvalidSelection(
        index,
        `provider.${key}`,
        `is not a provider field; the fields are ${PROVIDER_KEYS.join(", ")}.`,
      );
    }
  }
  if (typeof record.name !== "string" || !/^[A-Za-z0-9_-]+$/.test(record.name)) {
    throw new InvalidSelection(
      index,
      "provider.name",
      `must be letters, digits, _ or -, got ${describe(record.name)}.`,
    );
  }
  if (typeof record.baseUrl !== "string" || !isHttpUrl(record.baseUrl)) {
    throw new InvalidSelection(
      index,
      "provider.baseUrl",
      `must be an http(s) URL with a host, got ${describe(record.baseUrl)}.`,
    );
  }
  if (!spoken.includes(record.wireApi as ProviderDialect)) {
    throw new InvalidSelection(
      index,
      "provider.wireApi",
      `must be a dialect the "${harness}" harness speaks (${spoken.map((d) => `"${d}"`).join(", ")}), got ${describe(record.wireApi)}. ` +
        `Dialects jest-m3 knows: ${PROVIDER_DIALECTS.join(", ")}.`,
    );
  }
  if (
    record.envKey !== undefined &&
    (typeof record.envKey !== "string" || !(record.envKey in credentials))
  ) {
    throw new InvalidSelection(
      index,
      "provider.envKey",
      `must name a child variable mapped in credentialEnv, got ${describe(record.envKey)}.`,
    );
  }
  return provider as ModelProvider;
}

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
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new InvalidSelection(
      index,
      "(selection)",
      `must be an object like { harness, models }, got ${describe(input)}.`,
    );
  }
  const selection = input as Record<string, unknown>;
  for (const key of Object.keys(selection)) {
    if (!KEYS.includes(key)) {
      throw new InvalidSelection(
        index,
        key,
        `is not a selection field; the fields are ${KEYS.join(", ")}.`,
      );
    }
  }
  const { harness, models, name, executable, credentialEnv, provider, options } = selection;
  if (typeof harness !== "string" || harness === "") {
    throw new InvalidSelection(
      index,
      "harness",
      `must be a harness name such as "codex", got ${describe(harness)}.`,
    );
  }
  if (!Array.isArray(models) || models.length === 0) {
    throw new InvalidSelection(
      index,
      "models",
      `must be a non-empty array of model names, got ${Array.isArray(models) ? "an empty array" : describe(models)}. ` +
        `Give at least one model (for a live run, set M3_DOCS_CODEX_MODEL or pass the model name).`,
    );
  }
  models.forEach((model: unknown, position) => {
    if (typeof model !== "string" || model.trim() === "") {
      throw new InvalidSelection(
        index,
        `models[${position}]`,
        `must be a non-empty string, got ${describe(model)}.` +
          (model === undefined
            ? " If the name comes from an environment variable (M3_DOCS_CODEX_MODEL, say), it is not set."
            : ""),
      );
    }
  });
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    throw new InvalidSelection(index, "name", `must be a non-empty string, got ${describe(name)}.`);
  }
  if (executable !== undefined && (typeof executable !== "string" || executable === "")) {
    throw new InvalidSelection(
      index,
      "executable",
      `must be a path to the harness executable, got ${describe(executable)}.`,
    );
  }
  const credentials = checkCredentials(index, credentialEnv, parentEnv);
  let checkedProvider =
    provider === undefined
      ? undefined
      : checkProvider(
          index,
          provider,
          harness,
          harnessDialects(knownHarness(harness)),
          credentials,
        );
  if (
    options !== undefined &&
    (typeof options !== "object" || options === null || Array.isArray(options))
  ) {
    throw new InvalidSelection(index, "options", `must be an object, got ${describe(options)}.`);
  }
  const definition = knownHarness(harness);
  // A selection without a provider takes the run's, in its harness's dialect, when the
  // runner configured one.
  checkedProvider ??= runProvider(harnessDialects(definition));
  return {
    harness: definition,
    specs: (models as string[]).map((model) => ({
      harness,
      model,
      name: (name as string | undefined) ?? `${harness}:${model}`,
      ...(executable ? { executable: executable as string } : {}),
      credentialEnv: credentials,
      ...(checkedProvider ? { provider: checkedProvider } : {}),
      options: { ...((options as Record<string, unknown> | undefined) ?? {}) },
    })),
  };
}
