/**
 * Rules several entry points share, as zod schemas with their messages: an object that
 * refuses unknown keys (naming the fields and the nearest one), an http(s) URL, a
 * positive number of milliseconds, a string a process can receive. One rule, one wording,
 * wherever it applies.
 */
import { z } from "zod";
import { suggestName } from "../text/suggest.js";
import { describeValue } from "./check-input.js";

/** How {@link strictFields} words an unknown key. */
export interface UnknownKeyWording {
  /** What an unknown key "is": `is not a selection field`, `is unknown`. */
  readonly unknown: string;
  /** What the known keys are called: `the fields are`, `the options are`. */
  readonly listed: string;
}

/** `is not a selection field; the fields are harness, models. Did you mean "models"?` */
export function unknownKeyMessage(
  key: string,
  known: readonly string[],
  wording: UnknownKeyWording,
): string {
  const guess = suggestName(key, known);
  return (
    `${wording.unknown}; ${wording.listed} ${known.join(", ")}.` +
    (guess === null ? "" : ` Did you mean "${guess}"?`)
  );
}

/**
 * An object with exactly these fields: an unknown key is refused with the list of fields
 * and the nearest one, so a misspelt option never silently means the default.
 */
export function strictFields<Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
  wording: UnknownKeyWording & {
    /** The message when the input is not an object at all. */
    readonly notAnObject?: (received: unknown) => string;
  },
): z.ZodObject<Shape, z.core.$strict> {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === "unrecognized_keys") {
        const others = issue.keys.slice(1);
        return (
          unknownKeyMessage(issue.keys[0]!, known, wording) +
          (others.length > 0 ? ` (Also unknown: ${others.join(", ")}.)` : "")
        );
      }
      if (issue.code === "invalid_type" && wording.notAnObject)
        return wording.notAnObject(issue.input);
      return undefined;
    },
  });
}

/** `must be <what>, got <received>.`: the wording of a wrong value, as a zod error option. */
export function must(
  what: string,
  hint?: (received: unknown) => string,
): { error: (issue: { readonly input?: unknown }) => string } {
  return {
    error: (issue) =>
      `must be ${what}, got ${describeValue(issue.input)}.${hint ? hint(issue.input) : ""}`,
  };
}

/** Why `value` is not an http(s) URL with a host, or undefined when it is one. */
export function httpUrlProblem(value: string): string | undefined {
  const fix = 'give an http(s) URL with a host, e.g. "http://127.0.0.1:3000/mcp".';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not a valid URL: ${describeValue(value)}; ${fix}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `must be an http: or https: URL, got ${JSON.stringify(url.protocol)}; ${fix}`;
  }
  if (url.hostname === "") return `has no host: ${describeValue(value)}; ${fix}`;
  return undefined;
}

/**
 * An http(s) URL with a host, parsed: the one URL rule for a server's `url` and a
 * provider's `baseUrl`.
 */
export const httpUrl = z.string(must("a non-empty http(s) URL")).transform((value, context) => {
  const problem =
    value === "" ? `must be a non-empty http(s) URL, got an empty string.` : httpUrlProblem(value);
  if (problem === undefined) return new URL(value);
  context.addIssue({ code: "custom", message: problem, input: value });
  return z.NEVER;
});

/** The longest timer Node keeps: a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A positive number of milliseconds a Node timer can wait. */
export const positiveMs = z
  // zod's number is finite: NaN and Infinity are refused here.
  .number(must("a positive number of milliseconds"))
  .positive(must("a positive number of milliseconds"))
  .max(MAX_TIMEOUT_MS, {
    error: (issue) =>
      `must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days; Node fires longer timers at once), got ${String(issue.input)}.`,
  });

/** A string a process can receive (as its command, an argument, an environment value). */
export const processString = z
  .string()
  .refine(
    (value) => !value.includes("\u0000"),
    "contains a NUL byte, which no process can receive.",
  );

/**
 * A string with something in it (not only spaces); `what` names what it should hold
 * (`a harness name such as "codex"`), `hint` adds a fix for a received value.
 */
export function nonEmptyString(
  what = "a non-empty string",
  hint?: (received: unknown) => string,
): z.ZodString {
  return z
    .string(must(what, hint))
    .refine((value) => value.trim() !== "", { ...must(what, hint), abort: true });
}

/**
 * A model name as it reaches an agent (a command-line argument, a line of its config): not
 * empty, not a flag (`--yolo` would be read as one), no line break or other control
 * character (it would start a new line of the agent's configuration). `hint` adds a fix for a
 * value that is not a string at all.
 *
 * @example
 * ```ts
 * const models = z.array(modelName()).min(1);
 * ```
 */
export function modelName(hint?: (received: unknown) => string): z.ZodType<string> {
  return nonEmptyString("a non-empty string", hint).superRefine((value, context) => {
    const shown = JSON.stringify(value);
    if (value.startsWith("-")) {
      context.addIssue({
        code: "custom",
        message: `must be a model name, got ${shown}: a name starting with "-" would reach the agent as a command-line flag. Write the model's own name (e.g. "gpt-5.5").`,
      });
    } else if (/\p{Cc}/u.test(value)) {
      context.addIssue({
        code: "custom",
        message: `must be a model name, got ${shown}: it holds a line break or another control character, which would reach the agent's configuration as a line of its own. If the name comes from a file or a variable, trim it.`,
      });
    }
  });
}
