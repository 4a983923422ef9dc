/**
 * What the preset (`jest-preset.js`) computes when Jest loads it: the patterns that keep
 * the results folder out of the test run and out of watch mode, and ts-jest's options.
 * Loading a preset must never throw, so a configuration that cannot be read here gives
 * the defaults; global setup reports its errors properly.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The `resultsDir` a project's configuration names, or undefined for the default. */
function configuredResultsDir(rootDir: string): string | undefined {
  try {
    const file = join(rootDir, "m3.config.json");
    const raw: unknown = existsSync(file)
      ? JSON.parse(readFileSync(file, "utf8"))
      : (
          JSON.parse(readFileSync(join(rootDir, "package.json"), "utf8")) as Record<string, unknown>
        )["jest-m3"];
    const value = (raw as { resultsDir?: unknown } | undefined)?.resultsDir;
    return typeof value === "string" && value !== "" ? resolve(rootDir, value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Patterns matching the results folder: every `.m3` folder, and the configured
 * `resultsDir` of the project at `rootDir` when it names another one. Each run writes its
 * results there; in watch mode, a run that sees its own results would rerun forever.
 */
export function resultsIgnorePatterns(rootDir: string): string[] {
  const patterns = ["/\\.m3/"];
  const configured = configuredResultsDir(rootDir);
  if (configured !== undefined && !/[/\\]\.m3$/.test(configured)) {
    patterns.push(`^${escape(configured)}(/|$)`);
  }
  return patterns;
}

/**
 * ts-jest's options in the preset. Tests run as CommonJS whatever the project is: with
 * `"module": "Node16"` and `isolatedModules`, ts-jest would otherwise follow an ESM
 * project's `"type": "module"` and emit `import` that Jest cannot run. Each file is
 * transpiled on its own (`isolatedModules`): type-checking every test file through ts-jest
 * cost over a second per run, and `tsc --noEmit` reports the same errors for the whole
 * project at once. TS151001 (a hint about `esModuleInterop` printed on every run when
 * `module` is not set) is left out: the compiled tests get interop either way.
 */
export const TS_JEST_OPTIONS = {
  tsconfig: { module: "commonjs", isolatedModules: true },
  diagnostics: { ignoreCodes: [151001] },
} as const;
