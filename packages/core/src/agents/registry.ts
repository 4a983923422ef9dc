import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { UnknownHarness } from "../errors.js";
import type { HarnessDefinition } from "../harness/contract.js";
import { suggestName } from "../text/suggest.js";

/** The package names tried for a harness, in order. */
export function harnessPackageNames(name: string): string[] {
  return [`@jest-m3/harness-${name}`, `jest-m3-harness-${name}`];
}

/**
 * What a harness package declares in its package.json under `"jest-m3"`, so the registry
 * can find kinds and aliases that are not the package's own name (one package serving
 * `acp`, `gemini` and `opencode`; `claude` as an alias of `claude-code`).
 */
export interface HarnessManifest {
  /** The harness names the package's module exports. */
  readonly harnesses?: readonly string[];
  /** Other names, each mapped to one of `harnesses`. */
  readonly aliases?: Readonly<Record<string, string>>;
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

function answersTo(harness: HarnessDefinition, name: string): boolean {
  return harness.name === name || (harness.aliases ?? []).includes(name);
}

/** The harness named `name` among what a module exports (`default`, `harness`, `harnesses`). */
function pick(loaded: Record<string, unknown>, name: string): HarnessDefinition | undefined {
  const candidates: HarnessDefinition[] = [];
  const add = (value: unknown) => {
    if (isHarness(value)) candidates.push(value);
    else if (Array.isArray(value)) value.filter(isHarness).forEach((one) => candidates.push(one));
  };
  add(loaded.default);
  add(loaded.harness);
  add(loaded.harnesses);
  add(loaded);
  return (
    candidates.find((one) => answersTo(one, name)) ??
    (candidates.length === 1 ? candidates[0] : undefined)
  );
}

function load(specifier: string, cwd: string, name: string): HarnessDefinition | undefined {
  const fromProject = createRequire(join(cwd, "noop.js"));
  let resolved: string;
  try {
    resolved = fromProject.resolve(specifier);
  } catch {
    return undefined;
  }
  const found = pick(fromProject(resolved) as Record<string, unknown>, name);
  if (found) return found;
  throw new UnknownHarness(name, [], [specifier], {
    hint: `The module ${JSON.stringify(specifier)} does not export a harness named "${name}": export one made with defineHarness() as default (or several as \`harnesses\`).`,
  });
}

/** Harness packages installed where `cwd` resolves modules, with their manifests. */
function installedHarnessPackages(
  cwd: string,
  withoutManifest = false,
): { name: string; manifest: HarnessManifest }[] {
  const found: { name: string; manifest: HarnessManifest }[] = [];
  const seen = new Set<string>();
  for (let dir = cwd; ; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    if (existsSync(modules)) {
      const names: string[] = [];
      const scoped = join(modules, "@jest-m3");
      if (existsSync(scoped)) {
        for (const entry of readdirSync(scoped)) {
          if (entry.startsWith("harness-")) names.push(`@jest-m3/${entry}`);
        }
      }
      for (const entry of readdirSync(modules)) {
        if (entry.startsWith("jest-m3-harness-")) names.push(entry);
      }
      for (const name of names) {
        if (seen.has(name)) continue;
        seen.add(name);
        try {
          const json = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")) as {
            "jest-m3"?: HarnessManifest;
          };
          if (json["jest-m3"]) found.push({ name, manifest: json["jest-m3"] });
          else if (withoutManifest) found.push({ name, manifest: {} });
        } catch {
          // A package without a readable manifest is found by its name only.
          if (withoutManifest) found.push({ name, manifest: {} });
        }
      }
    }
    if (dirname(dir) === dir) break;
  }
  return found;
}

/** Where a harness module may come from, in the order {@link resolveHarness} tries them. */
function* candidateModules(
  name: string,
  config: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Generator<{ readonly specifier: string; readonly harness: string }> {
  const configured = config[`M3_HARNESS_${name.toUpperCase().replace(/-/g, "_")}`];
  for (const specifier of [...(configured ? [configured] : []), ...harnessPackageNames(name)]) {
    yield { specifier, harness: name };
  }
  for (const { name: packageName, manifest } of installedHarnessPackages(cwd)) {
    const canonical =
      manifest.aliases?.[name] ?? (manifest.harnesses?.includes(name) ? name : undefined);
    if (canonical) yield { specifier: packageName, harness: canonical };
  }
}

function unknownHarness(
  name: string,
  registered: ReadonlyMap<string, HarnessDefinition>,
  tried: readonly string[],
  cwd: string,
): UnknownHarness {
  const available = availableHarnessNames(registered, cwd);
  return new UnknownHarness(name, [...registered.keys()], [...tried], {
    available,
    suggestion: suggestName(name, available) ?? undefined,
  });
}

/**
 * Finds the adapter for `name`: registered on the kit first (by name or alias), then a
 * module named in the configuration (`M3_HARNESS_<NAME>=<module>`), then the packages
 * `@jest-m3/harness-<name>` and `jest-m3-harness-<name>` resolved from the project
 * directory, then any installed harness package whose manifest (`"jest-m3": { harnesses,
 * aliases }` in its package.json) declares the name.
 *
 * @throws {@link UnknownHarness} listing what is registered and what was tried.
 */
export function resolveHarness(
  name: string,
  registered: ReadonlyMap<string, HarnessDefinition>,
  config: Readonly<Record<string, string | undefined>>,
  cwd: string,
): HarnessDefinition {
  const own = registered.get(name) ?? [...registered.values()].find((one) => answersTo(one, name));
  if (own) return own;
  const tried: string[] = [];
  for (const { specifier, harness } of candidateModules(name, config, cwd)) {
    tried.push(specifier);
    const found = load(specifier, cwd, harness);
    if (found) return found;
  }
  throw unknownHarness(name, registered, tried, cwd);
}

/**
 * The module {@link resolveHarness} would load for `name` (its resolved file), found the
 * same way but without loading it: for a run that must reject a harness name nothing
 * serves, yet will open no session (a module that resolves but exports no such harness is
 * only found out by {@link resolveHarness}).
 *
 * @throws {@link UnknownHarness} listing what was tried, as {@link resolveHarness} does.
 */
export function locateHarness(
  name: string,
  config: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string {
  const fromProject = createRequire(join(cwd, "noop.js"));
  const tried: string[] = [];
  for (const { specifier } of candidateModules(name, config, cwd)) {
    tried.push(specifier);
    try {
      return fromProject.resolve(specifier);
    } catch {
      // Not installed where the project resolves modules: the next candidate.
    }
  }
  throw unknownHarness(name, new Map(), tried, cwd);
}

/**
 * Every harness name this project can use: the kit's own adapters (names and aliases) and
 * what the installed harness packages declare, or their package names imply.
 */
export function availableHarnessNames(
  registered: ReadonlyMap<string, HarnessDefinition>,
  cwd: string,
): string[] {
  const names = new Set<string>();
  for (const harness of registered.values()) {
    names.add(harness.name);
    for (const alias of harness.aliases ?? []) names.add(alias);
  }
  for (const { name, manifest } of installedHarnessPackages(cwd, true)) {
    const implied = name.replace(/^@jest-m3\/harness-/, "").replace(/^jest-m3-harness-/, "");
    for (const one of manifest.harnesses ?? [implied]) names.add(one);
    for (const alias of Object.keys(manifest.aliases ?? {})) names.add(alias);
  }
  return [...names].sort();
}
