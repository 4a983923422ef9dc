import type { default as Ajv, ErrorObject, ValidateFunction } from "ajv";
import type Ajv2019 from "ajv/dist/2019.js";
import type Ajv2020 from "ajv/dist/2020.js";
import type { SchemaIssue } from "../errors.js";
import { ajvEngines } from "./sdk-modules.js";

/** What checking a value against a schema found: nothing (valid), or every issue by path. */
export type SchemaCheck =
  { readonly valid: true } | { readonly valid: false; readonly issues: readonly SchemaIssue[] };

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/**
 * Checks values against the JSON Schemas a server declares (a tool's `inputSchema` and
 * `outputSchema`) with ajv, and turns ajv's errors into readable path-level issues. The
 * schema's `$schema` picks the draft (draft-07 and older, 2019-09, or 2020-12, MCP's default
 * when none is given). Compiled validators are cached per schema object.
 */
export class SchemaValidator {
  private readonly engines = new Map<string, AnyAjv>();
  private readonly compiled = new WeakMap<object, ValidateFunction | SchemaIssue[]>();

  /** Checks `value` against `schema`. A schema that does not compile is one issue at the root. */
  check(schema: Record<string, unknown>, value: unknown): SchemaCheck {
    let validate = this.compiled.get(schema);
    if (!validate) {
      try {
        validate = this.engineFor(schema).compile(schema);
      } catch (error) {
        validate = [
          {
            path: "",
            message: `the schema itself is not valid JSON Schema (${(error as Error).message})`,
          },
        ];
      }
      this.compiled.set(schema, validate);
    }
    if (Array.isArray(validate)) return { valid: false, issues: validate };
    if (validate(value)) return { valid: true };
    return { valid: false, issues: issuesOf(validate.errors ?? []) };
  }

  private engineFor(schema: Record<string, unknown>): AnyAjv {
    const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
    const key = dialect.includes("2020-12")
      ? "2020"
      : dialect.includes("2019-09")
        ? "2019"
        : dialect === ""
          ? "2020"
          : "07";
    let engine = this.engines.get(key);
    if (!engine) {
      // Formats are not asserted (no format vocabulary is bundled); unknown keywords are
      // tolerated, as servers add their own annotations.
      const options = {
        allErrors: true,
        strict: false,
        validateFormats: false,
        logger: false as const,
      };
      const engines = ajvEngines();
      engine =
        key === "2020"
          ? new engines.Ajv2020(options)
          : key === "2019"
            ? new engines.Ajv2019(options)
            : new engines.Ajv(options);
      this.engines.set(key, engine);
    }
    return engine;
  }
}

function issuesOf(errors: readonly ErrorObject[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = describe(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function describe(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return {
        path: `${error.instancePath}/${String(params.missingProperty)}`,
        message: "is required",
      };
    case "additionalProperties":
      return {
        path: `${error.instancePath}/${String(params.additionalProperty)}`,
        message: "is not allowed (the schema has additionalProperties: false)",
      };
    case "enum":
      return {
        path: error.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`,
      };
    case "const":
      return {
        path: error.instancePath,
        message: `must be ${JSON.stringify(params.allowedValue)}`,
      };
    default:
      return { path: error.instancePath, message: error.message ?? error.keyword };
  }
}
