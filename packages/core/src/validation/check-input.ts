/**
 * The one way core checks what a caller passed: a zod schema per entry point, and this
 * module to turn the first problem zod finds into the entry point's own {@link M3Error}
 * subclass, with the path of the field ("servers[0].env.PATH"), what is wrong, and what
 * was received.
 */
import type { z } from "zod";

/** One problem with an input, ready to put in an error message. */
export interface InputProblem {
  /** Where, as keys and indexes from the input's root (`["servers", 0, "env", "PATH"]`). */
  readonly path: readonly PropertyKey[];
  /** The path as a reader writes it: `servers[0].env.PATH`; `""` for the input itself. */
  readonly field: string;
  /** What is wrong and, where it helps, how to fix it: `must be a string, got number 3.` */
  readonly problem: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** `servers[0].env.PATH`; a key that is not a plain name is quoted (`env."A=B"`). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else {
      const name = String(key);
      const part = IDENTIFIER.test(name) ? name : JSON.stringify(name);
      out += out === "" ? part : `.${part}`;
    }
  }
  return out;
}

/** A received value as a message shows it: `number 3`, `"chat"`, `an empty array`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") {
    if (value === "") return "an empty string";
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  }
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") {
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch {
      text = "{...}";
    }
    return `an object ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
  }
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${value}`;
  return typeof value;
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  record: "an object",
  function: "a function",
};

/**
 * Messages for issues a schema did not word itself. Every schema of core words the ones a
 * user meets; this keeps the rest readable instead of zod's defaults.
 */
const defaultMessage: z.core.$ZodErrorMap = (issue) => {
  const got = `got ${describeValue(issue.input)}`;
  switch (issue.code) {
    case "invalid_type":
      return `must be ${ARTICLE[issue.expected] ?? issue.expected}, ${got}.`;
    case "too_small":
      return issue.origin === "array"
        ? `must hold at least ${String(issue.minimum)} item(s), ${got}.`
        : issue.origin === "string"
          ? `must be a non-empty string, ${got}.`
          : `must be at least ${String(issue.minimum)}, ${got}.`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}, ${got}.`;
    case "invalid_value":
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}, ${got}.`;
    case "invalid_format":
      return `is not a valid ${issue.format}, ${got}.`;
    case "unrecognized_keys":
      return `is unknown.`;
    default:
      return `is not valid, ${got}.`;
  }
};

/** Unknown keys first: a misspelt key is usually why a required one is "missing". */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  return issues.find((issue) => issue.code === "unrecognized_keys") ?? issues[0]!;
}

/** The {@link InputProblem} of zod's first issue (an unknown key's path ends with the key). */
export function problemOf(issues: readonly z.core.$ZodIssue[]): InputProblem {
  const issue = firstIssue(issues);
  const path =
    issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : [...issue.path];
  return { path, field: formatPath(path), problem: issue.message };
}

/**
 * Checks `value` against `schema` and returns what the schema makes of it; on the first
 * problem, throws the error `refuse` builds from it (the entry point's own M3Error class).
 *
 * @example
 * ```ts
 * const options = checkInput(sessionOptionsSchema, raw, (p) => new InvalidSessionOptions(p.field, p.problem));
 * ```
 */
export function checkInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  refuse: (problem: InputProblem) => Error,
): z.output<Schema> {
  const result = schema.safeParse(value, { error: defaultMessage });
  if (result.success) return result.data;
  throw refuse(problemOf(result.error.issues));
}
