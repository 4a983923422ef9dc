import { createHash } from "node:crypto";
import type { HarnessDefinition, ReadinessContext } from "../harness/contract.js";

/** The key a readiness answer is cached under (see {@link HarnessDefinition.readinessKey}). */
export function readinessKeyFor(harness: HarnessDefinition, context: ReadinessContext): string {
  if (harness.readinessKey) return `adapter:${harness.readinessKey(context)}`;
  return JSON.stringify([
    context.selection.harness,
    context.selection.executable ?? null,
    [...context.credentialNames].sort(),
    context.selection.provider?.baseUrl ?? null,
    // Names and a digest of the values: the key lands in run.json and reports, and an M3_*
    // variable may hold something secret.
    Object.entries(context.config)
      .filter(([name]) => name.startsWith("M3_"))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => [
        name,
        value === undefined ? null : createHash("sha256").update(value).digest("hex").slice(0, 12),
      ]),
  ]);
}
