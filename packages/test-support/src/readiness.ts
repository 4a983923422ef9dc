/**
 * What the harness packages' readiness tests share: the context a readiness check gets, a
 * stand-in for an agent binary that lies about its version, and the all-ready verdict of
 * the installed binary.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAgentExecutable } from "@jest-m3/core/adapter-kit";
import type { Readiness, ReadinessContext, SelectionSpec } from "@jest-m3/core/harness";

/** A readiness context: `selection`, the configuration `config`, the credential names. */
export function readinessContext(
  selection: SelectionSpec,
  config: Record<string, string> = {},
  credentialNames: string[] = [],
): ReadinessContext {
  return { selection, config, credentialNames };
}

/**
 * Writes `dir/name`, a stand-in for the agent binary `real` that prints `versionOutput` for
 * `--version` and runs the real one otherwise, appending every invocation's arguments to
 * `log` when given. Returns its path.
 */
export function fakeAgentBinary(
  dir: string,
  name: string,
  real: string,
  versionOutput: string,
  log?: string,
): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    "#!/bin/sh\n" +
      (log ? `echo "$*" >> ${JSON.stringify(log)}\n` : "") +
      `if [ "$1" = "--version" ]; then echo ${JSON.stringify(versionOutput)}; exit 0; fi\n` +
      `exec ${JSON.stringify(real)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

/**
 * Writes `dir/name`, the installed Gemini CLI behind a shell script that runs `prelude`
 * first (shell lines: log the start, answer `--version` itself) and then the real binary
 * with the same arguments. Returns its path.
 */
export function wrappedGemini(dir: string, name: string, prelude: string): string {
  const real = resolveAgentExecutable(
    {
      agent: "Gemini CLI",
      variable: "M3_GEMINI_EXECUTABLE",
      packageName: "@google/gemini-cli",
      binName: "gemini",
      installVersion: "0.61.0",
    },
    undefined,
    {},
  );
  if (!real.found) throw new Error(real.reason);
  const path = join(dir, name);
  const command = [real.command, ...real.prefix].map((arg) => JSON.stringify(arg)).join(" ");
  writeFileSync(path, `#!/bin/sh\n${prelude}\nexec ${command} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The installed binary's readiness: `harness` (name, version, executable), every capability ready. */
export function expectEveryCapabilityReady(
  readiness: Readiness,
  harness: { readonly name: string; readonly version: string; readonly executable: RegExp },
): void {
  expect(readiness.harness).toEqual({
    name: harness.name,
    version: harness.version,
    executable: expect.stringMatching(harness.executable),
  });
  expect(
    Object.entries(readiness.capabilities).filter(
      ([, capability]) => capability.status !== "ready",
    ),
  ).toEqual([]);
  expect(readiness.ready).toBe(true);
}
