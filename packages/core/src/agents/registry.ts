import { createRequire } from "node:module";
import { join } from "node:path";
import { UnknownHarness } from "../errors.js";
import type { HarnessDefinition } from "../harness/contract.js";

/** The package names tried for a harness, in order. */
export function harnessPackageNames(name: string): string[] {
  return [`@jest-m3/harness-${name}`, `jest-m3-harness-${name}`];
}

function isHarness(value: unknown): value is HarnessDefinition {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as HarnessDefinition).name === "string" &&
    typeof (value as HarnessDefinition).open === "function" &&
    typeof (value as HarnessDefinition).readiness === "function"
  );
}

function load(specifier: string, cwd: string): HarnessDefinition | undefined {
  const fromProject = createRequire(join(cwd, "noop.js"));
  let resolved: string;
  try {
    resolved = fromProject.resolve(specifier);
  } catch {
    return undefined;
  }
  const loaded = fromProject(resolved) as { default?: unknown; harness?: unknown };
  for (const candidate of [loaded.default, loaded.harness, loaded]) {
    if (isHarness(candidate)) return candidate;
  }
  throw new TypeError(
    `The module ${JSON.stringify(specifier)} does not export a harness: export one made with defineHarness() as default.`,
  );
}

/**
 * Finds the adapter for `name`: registered on the kit first, then a module named in the
 * configuration (`M3_HARNESS_<NAME>=<module>`), then the packages `@jest-m3/harness-<name>`
 * and `jest-m3-harness-<name>` resolved from the project directory.
 *
 * @throws {@link UnknownHarness} listing what is registered and what was tried.
 */
export function resolveHarness(
  name: string,
  registered: ReadonlyMap<string, HarnessDefinition>,
  config: Readonly<Record<string, string | undefined>>,
  cwd: string,
): HarnessDefinition {
  const own = registered.get(name);
  if (own) return own;
  const configured = config[`M3_HARNESS_${name.toUpperCase().replace(/-/g, "_")}`];
  const tried: string[] = [];
  for (const specifier of [...(configured ? [configured] : []), ...harnessPackageNames(name)]) {
    tried.push(specifier);
    const found = load(specifier, cwd);
    if (found) return found;
  }
  throw new UnknownHarness(name, [...registered.keys()], tried);
}
