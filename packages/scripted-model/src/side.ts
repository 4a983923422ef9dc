/**
 * Answers to side requests: what an agent asks its model besides the main turn (a title, a
 * routing decision in JSON mode, a summary), answered plausibly so no rule has to mention them.
 */
import type { NeutralRequest } from "./conversation";
import type { SideAnswer, SidePurpose } from "./dialects/dialect";
import { isPlainObject } from "./script";

/** The plausible answer to a side request. */
export function sideAnswer(purpose: SidePurpose, request: NeutralRequest | null): SideAnswer {
  const user = latestText(request);
  switch (purpose) {
    case "title": {
      const words = user.replace(/\s+/g, " ").trim().split(" ").slice(0, 6).join(" ");
      return { purpose, text: words.length > 0 ? words : "Scripted conversation" };
    }
    case "routing":
      return { purpose, text: JSON.stringify(sampleFromSchema(request?.schema, "")) };
    case "summary":
      return { purpose, text: "A scripted conversation" };
    default:
      return { purpose, text: "" };
  }
}

function latestText(request: NeutralRequest | null): string {
  const items = request?.items ?? [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.type === "user") return item.text;
  }
  return "";
}

/**
 * A small value that fits a JSON schema (OpenAPI-style uppercase types too): the first enum
 * value, the minimum of a number, a short string, every property of an object.
 */
export function sampleFromSchema(schema: unknown, key: string): unknown {
  if (!isPlainObject(schema)) return key.length > 0 ? "scripted" : {};
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return sampleFromSchema(variants[0], key);
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null") ?? type[0];
  switch (String(type ?? (isPlainObject(schema.properties) ? "object" : "string")).toLowerCase()) {
    case "object": {
      const out: Record<string, unknown> = {};
      const properties = isPlainObject(schema.properties) ? schema.properties : {};
      for (const [name, inner] of Object.entries(properties)) {
        out[name] = sampleFromSchema(inner, name);
      }
      return out;
    }
    case "array":
      return schema.minItems !== undefined && Number(schema.minItems) > 0
        ? [sampleFromSchema(schema.items, key)]
        : [];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return /reason/i.test(key) ? "A scripted model answers this without a rule." : "scripted";
  }
}
