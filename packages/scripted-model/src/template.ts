/**
 * Text templates used by replies and call arguments: `{{result.amount}}`, `{{match.1 | number}}`.
 *
 * A placeholder is a path into the step context (roots: `result`, `results`, `user`, `match`,
 * `turn`) followed by optional filters (`number`, `json`). A string that is exactly one
 * placeholder keeps the value's type when used as an argument (`"{{result.amount}}"` → `9`).
 */

/** The names a placeholder may start with. */
export const TEMPLATE_ROOTS = ["result", "results", "user", "match", "turn"] as const;

/** The filters a placeholder may apply, in order. */
export const TEMPLATE_FILTERS = ["number", "json"] as const;

type Filter = (typeof TEMPLATE_FILTERS)[number];

interface Placeholder {
  /** The text of the placeholder between the braces, trimmed. */
  source: string;
  path: string[];
  filters: Filter[];
}

type Part = string | Placeholder;

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** A template could not be parsed; `problem` says why. */
export interface TemplateProblem {
  problem: string;
}

/** A parsed template. */
export class Template {
  private constructor(private readonly parts: Part[]) {}

  /** Parses `text`, or returns what is wrong with it. */
  static parse(text: string): Template | TemplateProblem {
    const parts: Part[] = [];
    let last = 0;
    for (const match of text.matchAll(PLACEHOLDER)) {
      const index = match.index ?? 0;
      if (index > last) parts.push(text.slice(last, index));
      const source = (match[1] ?? "").trim();
      const [pathText = "", ...filterTexts] = source.split("|").map((s) => s.trim());
      const path = pathText.split(".").filter((s) => s.length > 0);
      const root = path[0];
      if (root === undefined) {
        return { problem: `placeholder {{${match[1] ?? ""}}} is empty` };
      }
      if (!(TEMPLATE_ROOTS as readonly string[]).includes(root)) {
        return {
          problem:
            `placeholder {{${source}}} starts with unknown name "${root}"; ` +
            `use one of ${TEMPLATE_ROOTS.join(", ")}`,
        };
      }
      for (const filter of filterTexts) {
        if (!(TEMPLATE_FILTERS as readonly string[]).includes(filter)) {
          return {
            problem:
              `placeholder {{${source}}} uses unknown filter "${filter}"; ` +
              `use one of ${TEMPLATE_FILTERS.join(", ")}`,
          };
        }
      }
      parts.push({ source, path, filters: filterTexts as Filter[] });
      last = index + match[0].length;
    }
    if (last < text.length) parts.push(text.slice(last));
    const rest = parts.filter((p): p is string => typeof p === "string").join("");
    if (rest.includes("{{") || rest.includes("}}")) {
      return { problem: `unbalanced braces in template "${text}"; write placeholders as {{name}}` };
    }
    return new Template(parts);
  }

  /** Whether the template holds at least one placeholder. */
  get dynamic(): boolean {
    return this.parts.some((p) => typeof p !== "string");
  }

  /**
   * Renders to text. Values that are not strings are written as JSON. A missing value is
   * written as `<missing PATH>` and its path is added to `missing`.
   */
  renderText(scope: Record<string, unknown>, missing: string[]): string {
    return this.parts
      .map((part) => {
        if (typeof part === "string") return part;
        const value = resolve(part, scope, missing);
        if (value === undefined) return `<missing ${part.source}>`;
        return typeof value === "string" ? value : JSON.stringify(value);
      })
      .join("");
  }

  /**
   * Renders to a value: a template that is exactly one placeholder keeps the value's type
   * (a missing value becomes `null`); any other template renders to text.
   */
  renderValue(scope: Record<string, unknown>, missing: string[]): unknown {
    const only = this.parts.length === 1 ? this.parts[0] : undefined;
    if (only !== undefined && typeof only !== "string") {
      const value = resolve(only, scope, missing);
      return value === undefined ? null : value;
    }
    return this.renderText(scope, missing);
  }
}

function resolve(placeholder: Placeholder, scope: Record<string, unknown>, missing: string[]) {
  let value: unknown = scope;
  for (const key of placeholder.path) {
    if (value === null || typeof value !== "object") {
      value = undefined;
      break;
    }
    value = (value as Record<string, unknown>)[key];
  }
  for (const filter of placeholder.filters) {
    if (value === undefined) break;
    if (filter === "number") {
      const n = typeof value === "number" ? value : Number(String(value).trim());
      value = Number.isFinite(n) ? n : undefined;
    } else {
      value = JSON.stringify(value);
    }
  }
  if (value === undefined) missing.push(placeholder.source);
  return value;
}
