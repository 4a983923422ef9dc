/**
 * The run plan: whether any test of a run can use jest-m3's kit. A run whose test files
 * never import `jest-m3` or `@jest-m3/*` (directly, or through the project's own modules)
 * cannot open an agent session, so global setup starts no scripted model and probes no
 * harness, and the workers skip the kit's setup: such a run costs what plain Jest costs.
 *
 * The preset's test sequencer (`test-sequencer.ts`) decides it: Jest sorts the run's tests
 * before it calls global setup, in the same process. Any doubt counts as "uses the kit": a
 * module that cannot be read or resolved, a path alias, a workspace package. Only a wrong
 * "no" could break a run; a wrong "yes" only costs the time it costs today.
 */
import { readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, resolve, sep } from "node:path";
import { RUN_ENV } from "./hand-off.js";

/**
 * Set by the sequencer in Jest's main process: `<pid>:1` when some test may use the kit,
 * `<pid>:0` when none can. The pid keeps a value inherited from an outer Jest run from
 * counting in a nested one.
 */
export const PLAN_ENV = "M3_RUN_PLAN";

/** Set by global setup for the workers: "1" when this run's tests cannot use the kit. */
export const KIT_UNUSED_ENV = RUN_ENV.kitUnused;

const KIT_SPECIFIER = /["'`](?:jest-m3|@jest-m3\/[\w.-]+)(?:\/[^"'`]*)?["'`]/;
const SPECIFIERS =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\brequireActual\s*\(\s*|\bmock\s*\(\s*)["']([^"'\n]+)["']/g;
const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"];
const BUILTINS = new Set(builtinModules);
/**
 * jest-m3's built files (the preset's setup file among them) are not the project's tests.
 * Only its `dist` folder: a test may import a fixture kept elsewhere in jest-m3's folder
 * (this repository's own tests do), and that fixture may use the kit.
 */
const PRESET_DIR = `${resolve(__dirname, "..")}${sep}`;

function readable(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** A relative import's file: the path itself, with an extension, or a folder's index. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  // TypeScript sources import their siblings as `./x.js`.
  const bases = /\.[cm]?js$/.test(base) ? [base, base.replace(/\.([cm]?)js$/, ".$1ts")] : [base];
  for (const candidate of bases) {
    for (const extension of EXTENSIONS) {
      if (readable(`${candidate}${extension}`) !== undefined) return `${candidate}${extension}`;
    }
    for (const extension of EXTENSIONS.slice(1)) {
      const index = `${candidate}${sep}index${extension}`;
      if (readable(index) !== undefined) return index;
    }
  }
  return undefined;
}

/**
 * True when a bare specifier is a third-party package installed under a `node_modules`
 * folder (which cannot be jest-m3: those are matched by name first). A workspace package
 * or a path alias is not: it may be the project's own code importing jest-m3.
 */
function isInstalledPackage(from: string, specifier: string): boolean {
  if (specifier.startsWith("node:") || BUILTINS.has(specifier.split("/")[0]!)) return true;
  try {
    const path = createRequire(from).resolve(specifier);
    return BUILTINS.has(path) || path.includes(`${sep}node_modules${sep}`);
  } catch {
    return false;
  }
}

/**
 * True when any of `files` (test files, setup files) may use jest-m3: it, or a module of the
 * project it imports (followed transitively), names `jest-m3` or `@jest-m3/...`, or imports
 * something this check cannot follow.
 */
export function mayUseKit(files: readonly string[]): boolean {
  const seen = new Set<string>();
  const queue = [...files];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.includes(`${sep}node_modules${sep}`) || file.startsWith(PRESET_DIR)) continue;
    const text = readable(file);
    if (text === undefined) return true;
    if (KIT_SPECIFIER.test(text)) return true;
    for (const match of text.matchAll(SPECIFIERS)) {
      const specifier = match[1]!;
      if (specifier.startsWith(".") || specifier.startsWith("/")) {
        const found = resolveRelative(file, specifier);
        if (found === undefined) return true;
        queue.push(found);
      } else if (!isInstalledPackage(file, specifier)) {
        return true;
      }
    }
  }
  return false;
}

/** Records the sequencer's verdict for this process's global setup. */
export function recordPlan(usesKit: boolean): void {
  process.env[PLAN_ENV] = `${process.pid}:${usesKit ? 1 : 0}`;
}

/**
 * True only when this process's sequencer found that no test of the run can use the kit.
 * Without a verdict (a project's own `testSequencer`, or a root configuration that does
 * not take the preset's) the answer is false: global setup does everything, as for a run
 * with agent tests.
 */
export function kitUnusedByPlan(): boolean {
  return process.env[PLAN_ENV] === `${process.pid}:0`;
}

/** In a worker (or in band): true when global setup found the run's tests cannot use the kit. */
export function kitUnusedInRun(): boolean {
  return process.env[KIT_UNUSED_ENV] === "1";
}
