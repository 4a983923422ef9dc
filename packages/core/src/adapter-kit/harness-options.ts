/**
 * Reading a selection's `options` for a harness with the rules every adapter words the
 * same: an unknown option names the known ones, and each kind of value (true or false, a
 * number of milliseconds, one of a few words, a whole number) says what it must be and
 * what it got. The adapter keeps its own options and defaults; the reader only checks.
 *
 * @example
 * ```ts
 * const read = optionReader("My Agent", selection.options, ["warm", "startupTimeoutMs"]);
 * const options = { warm: read.boolean("warm", false), startupTimeoutMs: read.milliseconds("startupTimeoutMs", 30_000) };
 * ```
 */
import { InvalidHarnessOptions } from "./agent-errors.js";

/** Checks one selection's options; every method throws the reader's error when a value is wrong. */
export interface OptionReader {
  /** `true` or `false`; `fallback` when absent. */
  boolean(name: string, fallback: boolean): boolean;
  /** A number of milliseconds of at least `min` (default 1000); `fallback` when absent. */
  milliseconds(name: string, fallback: number, min?: number): number;
  /** A whole number of at least `min` (default 0); `fallback` when absent. */
  wholeNumber(name: string, fallback: number, min?: number): number;
  /** One of `values`; `fallback` when absent. */
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T;
  /** The error for option `name`, worded `problem` (for checks of the adapter's own). */
  error(name: string, problem: string): Error;
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
function alternatives(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length < 2
    ? (quoted[0] ?? "")
    : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/**
 * A reader of `options` for the harness `who` names in messages (e.g. `My Agent`), after
 * checking that every option is one of `names`.
 *
 * @param error - Makes the error (default {@link InvalidHarnessOptions}), for an adapter
 * that keeps a class of its own.
 */
export function optionReader(
  who: string,
  options: Readonly<Record<string, unknown>>,
  names: readonly string[],
  error: (option: string, problem: string) => Error = (option, problem) =>
    new InvalidHarnessOptions(who, option, problem),
): OptionReader {
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) throw error(key, `is unknown; the options are ${names.join(", ")}.`);
  }
  const got = (name: string): string => `got ${JSON.stringify(options[name])}.`;
  return {
    boolean(name, fallback) {
      const value = options[name];
      if (value === undefined) return fallback;
      if (typeof value !== "boolean") throw error(name, `must be true or false, ${got(name)}`);
      return value;
    },
    milliseconds(name, fallback, min = 1000) {
      const value = options[name];
      if (value === undefined) return fallback;
      if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
        throw error(name, `must be a number of milliseconds of at least ${min}, ${got(name)}`);
      }
      return value;
    },
    wholeNumber(name, fallback, min = 0) {
      const value = options[name];
      if (value === undefined) return fallback;
      if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
        throw error(name, `must be a whole number of at least ${min}, ${got(name)}`);
      }
      return value;
    },
    oneOf(name, values, fallback) {
      const value = options[name];
      if (value === undefined) return fallback;
      if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
        throw error(name, `must be ${alternatives(values)}, ${got(name)}`);
      }
      return value as (typeof values)[number];
    },
    error,
  };
}
