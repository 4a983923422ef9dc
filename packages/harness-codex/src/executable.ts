import { nativeBinary, executableResolver, type InstalledBinary } from "@jest-m3/core/adapter-kit";
import { join } from "node:path";

/** The Codex version this adapter was tested with. Older is refused; newer is untested. */
export const TESTED_CODEX_VERSION = "0.171.0";

/** The configuration variable naming the Codex executable. */
export const EXECUTABLE_VARIABLE = "M3_CODEX_EXECUTABLE";

const TRIPLES: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "android-x64": "x86_64-unknown-linux-musl",
  "android-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

/**
 * The native binary of an installed `@openai/codex` (its platform package
 * `@openai/codex-<platform>-<arch>`, or the `vendor` folder of older layouts), resolved from
 * the project directory and from this package. Never the JavaScript wrapper, which would add
 * a Node process in front of Codex.
 */
export function installedCodexBinary(): InstalledBinary {
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  if (triple === undefined) return { tried: [`(no Codex build for ${key})`] };
  const os = process.platform === "android" ? "linux" : process.platform;
  const binary = process.platform === "win32" ? "codex.exe" : "codex";
  return nativeBinary({
    packageName: "@openai/codex",
    platformPackages: [`@openai/codex-${os}-${process.arch}`],
    // The platform package's vendor folder, or the package's own in older layouts.
    candidates: ({ package: root, platforms }) =>
      [...platforms, ...(root !== undefined ? [root] : [])].map((dir) =>
        join(dir, "vendor", triple, "bin", binary),
      ),
    bases: [process.cwd(), __dirname],
  });
}

/**
 * Finds the Codex executable: the selection's `executable`, else the configuration's
 * `M3_CODEX_EXECUTABLE`, else the native binary of an installed `@openai/codex`, else
 * `codex` on `PATH`. An explicit path that is wrong is reported, never silently replaced.
 */
export const resolveCodexExecutable = executableResolver({
  agent: "Codex",
  variable: EXECUTABLE_VARIABLE,
  packageName: "@openai/codex",
  binName: "codex",
  installVersion: TESTED_CODEX_VERSION,
  installed: installedCodexBinary,
});
