/**
 * Checks for the options of an agent a test names by command (its arguments, the variables
 * added to its isolated environment, the dialects it speaks, `{{placeholders}}` in its
 * strings), each worded once: what the value must be and what it got. They report through
 * an {@link OptionReader}'s error, so the adapter keeps its own error class.
 *
 * @example
 * ```ts
 * const read = optionReader("my-agent", options, ["args", "env"]);
 * const args = readStrings(read, options, "args") ?? [];
 * const env = readAgentEnv(read, options, "env");
 * ```
 */
import { PROVIDER_DIALECTS, type ProviderDialect } from "../harness/contract.js";
import { isSecretName } from "../wire/redaction.js";
import type { OptionReader } from "./harness-options.js";

/**
 * Variables a harness sets to the session's isolated home and temp folder: an `env` that
 * replaced one would point the agent at the host's own files, or at folders nobody removes.
 */
export const ISOLATION_VARIABLES: ReadonlySet<string> = new Set([
  "HOME",
  "USERPROFILE",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "APPDATA",
  "LOCALAPPDATA",
]);

/** A value as a message shows it (`undefined`, or its JSON). */
export function shownValue(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}

/**
 * `options[name]` as an array of strings (each matching `pattern`, when given), or
 * undefined when absent; else the reader's error saying it must be `what`.
 */
export function readStrings(
  read: OptionReader,
  options: Readonly<Record<string, unknown>>,
  name: string,
  what = "an array of strings",
  pattern?: RegExp,
): string[] | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.some((entry) => typeof entry !== "string" || (pattern && !pattern.test(entry)))
  ) {
    throw read.error(name, `must be ${what}, got ${shownValue(value)}.`);
  }
  return value as string[];
}

/**
 * `options[name]` as variables for the agent's environment (`{}` when absent): valid
 * names, string values, none of the {@link ISOLATION_VARIABLES}, and no name that looks
 * like a credential (it would sit in the test's source: the selection's `credentialEnv`
 * maps it instead).
 */
export function readAgentEnv(
  read: OptionReader,
  options: Readonly<Record<string, unknown>>,
  name: string,
): Record<string, string> {
  const env = options[name];
  if (env === undefined) return {};
  if (typeof env !== "object" || env === null || Array.isArray(env)) {
    throw read.error(name, `must be an object of strings, got ${shownValue(env)}.`);
  }
  for (const [variable, value] of Object.entries(env)) {
    const option = `${name}.${variable}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
      throw read.error(option, "is not a valid variable name.");
    }
    if (typeof value !== "string") {
      throw read.error(option, `must be a string, got ${shownValue(value)}.`);
    }
    if (ISOLATION_VARIABLES.has(variable.toUpperCase())) {
      throw read.error(
        option,
        "is set by the harness: the agent runs in a fresh temporary home and temp folder that the kit removes after the session. Leave it out (files the agent needs go in the session's workspace).",
      );
    }
    if (isSecretName(variable)) {
      throw read.error(
        option,
        `looks like a credential; do not write it in the test. Map it from your environment with the selection's credentialEnv: { ${variable}: "<PARENT_VARIABLE>" }.`,
      );
    }
  }
  return env as Record<string, string>;
}

/** `options[name]` as a non-empty list of provider dialects; every dialect when absent. */
export function readDialects(
  read: OptionReader,
  options: Readonly<Record<string, unknown>>,
  name: string,
): readonly ProviderDialect[] {
  const dialects = options[name];
  if (dialects === undefined) return PROVIDER_DIALECTS;
  if (
    !Array.isArray(dialects) ||
    dialects.length === 0 ||
    dialects.some((dialect) => !PROVIDER_DIALECTS.includes(dialect as ProviderDialect))
  ) {
    const known = PROVIDER_DIALECTS.map((entry) => `"${entry}"`).join(", ");
    throw read.error(name, `must be a non-empty array of ${known}, got ${shownValue(dialects)}.`);
  }
  return dialects as ProviderDialect[];
}

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

/** Refuses a `{{placeholder}}` in `text` (option `option`) that is not one of `known`. */
export function checkPlaceholders(
  read: OptionReader,
  option: string,
  text: string,
  known: readonly string[],
): void {
  for (const [, name] of text.matchAll(PLACEHOLDER)) {
    if (!known.includes(name ?? "")) {
      const list = known.map((entry) => `{{${entry}}}`).join(", ");
      throw read.error(
        option,
        `uses the unknown placeholder {{${name}}}; the placeholders are ${list}.`,
      );
    }
  }
}

/** Replaces the `{{placeholders}}` of `text`; one without a value is `missing(name)`, thrown. */
export function fillPlaceholders(
  text: string,
  values: Readonly<Record<string, string | undefined>>,
  missing: (name: string) => Error,
): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw missing(name);
    return value;
  });
}
