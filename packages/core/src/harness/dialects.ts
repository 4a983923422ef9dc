import type { HarnessDefinition, ProviderDialect } from "./contract.js";

/** The dialects a harness speaks, preferred first (`responses` when it declares none). */
export function harnessDialects(harness: HarnessDefinition): readonly ProviderDialect[] {
  return harness.dialects && harness.dialects.length > 0 ? harness.dialects : ["responses"];
}
