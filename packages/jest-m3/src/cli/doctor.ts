/**
 * `npx jest-m3 doctor`: on one screen, whether this project can run its tests: the
 * versions that matter, every installed harness's readiness with the reason and the fix
 * for each capability that is not ready, and which model providers a run would use.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ModelProvider, ProviderDialect, Readiness } from "@jest-m3/core";
import {
  harnessDialects,
  nativeRelayBuildCommand,
  resolveHarness,
  STDIO_RELAY_VARIABLE,
  stdioRelayChoice,
} from "@jest-m3/core/runner";
import { loadConfig, type M3Config } from "../shared/config.js";
import { KNOWN_HARNESSES, type KnownHarness } from "../main/known-harnesses.js";
import { providersOf } from "../shared/hand-off.js";

/** The guide to readiness reasons, online: a user's project has no docs folder of ours. */
const TROUBLESHOOTING_READINESS =
  "https://github.com/jest-m3/jest-m3/blob/main/docs/troubleshooting.md#readiness";

/** What a fix for a capability that is not ready usually is. */
function fixFor(harness: KnownHarness | undefined, capability: string, reason: string): string {
  if (/not installed|not found|cannot find|ENOENT|no executable/i.test(reason) && harness) {
    return harness.install;
  }
  if (capability === "credentials") {
    return harness
      ? `sign in with the agent's own login, set ${harness.credentials.join(" or ")}, or configure a scriptedModel in m3.config.json (offline)`
      : "sign in with the agent's own login, or configure a scriptedModel in m3.config.json";
  }
  if (/version/i.test(reason) && harness) return harness.install;
  return `look the reason up under "Readiness" in the troubleshooting guide, ${TROUBLESHOOTING_READINESS}`;
}

function versionOf(require: NodeJS.Require, name: string): string | null {
  try {
    const path = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

function installed(require: NodeJS.Require, name: string): boolean {
  return versionOf(require, name) !== null;
}

/** `>=22`, `>=22.0.0`, `^20.11`: the lowest version a simple range allows, or null. */
function minimumOf(range: string): [number, number, number] | null {
  const match = /^\s*(?:>=|\^|~)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range);
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : null;
}

function atLeast(version: string, minimum: readonly [number, number, number]): boolean {
  const parts = version.replace(/^v/, "").split(".").map(Number);
  for (let index = 0; index < 3; index += 1) {
    const [have, need] = [parts[index] ?? 0, minimum[index]!];
    if (have !== need) return have > need;
  }
  return true;
}

/**
 * Which Node runs a harness's agent, and whether it is the one the agent's package asks for
 * (`engines.node`): the agent's own Node when the harness found one for it (its `node`
 * capability), this Node for an agent that is a JavaScript file, none for a native binary
 * (where the install's engine warning does not apply). `ok` false when a JavaScript agent
 * runs on a Node older than it asks for.
 */
export function agentNodeLine(
  known: KnownHarness | undefined,
  readiness: Readiness,
  projectRequire: NodeJS.Require,
  nodeVersion: string = process.versions.node,
): { line: string; ok: boolean } | undefined {
  const own = readiness.capabilities.node;
  if (own)
    return {
      line: `node: ${own.status === "ready" ? "" : `${own.status} — `}${own.reason ?? "the agent's own Node"}`,
      ok: own.status === "ready" || own.status === "degraded",
    };
  const agentPackage = known?.agentPackage;
  let engines: string | undefined;
  try {
    const manifest = projectRequire.resolve(`${agentPackage}/package.json`);
    engines = (JSON.parse(readFileSync(manifest, "utf8")) as { engines?: { node?: string } })
      .engines?.node;
  } catch {
    engines = undefined;
  }
  const executable = readiness.harness.executable;
  if (!executable) return undefined;
  const asks = engines ? `${agentPackage} asks for Node ${engines}` : undefined;
  if (!/\.[cm]?js$/.test(executable))
    return {
      line: `node: not used (a native binary${asks ? `; ${asks} at install, which does not apply` : ""})`,
      ok: true,
    };
  const minimum = engines ? minimumOf(engines) : null;
  const ok = minimum === null || atLeast(nodeVersion, minimum);
  return {
    line:
      `node: ${ok ? "" : "too old — "}this Node, ${nodeVersion}` +
      (asks ? `; ${asks}` : "") +
      (ok
        ? ""
        : `\n        fix: run the tests on Node ${engines!.replace(/^>=\s*/, "")} or later (for example with nvm)`),
    ok,
  };
}

/** One harness's readiness: a status line, then each reason once with the fix. */
function readinessLines(
  name: string,
  known: KnownHarness | undefined,
  readiness: Readiness,
  projectRequire: NodeJS.Require,
): string[] {
  const at = readiness.harness.version ?? "unknown version";
  const where = readiness.harness.executable ? ` (${readiness.harness.executable})` : "";
  // Which Node runs the agent, on its status line (a fix, when one is needed, below it).
  const node = agentNodeLine(known, readiness, projectRequire)?.line.split("\n");
  const lines = [
    `  ${readiness.ready ? "✓" : "✗"} ${name} ${at}${where}: ${readiness.ready ? "ready" : "NOT ready"}${node ? ` · ${node[0]}` : ""}`,
    ...(node?.slice(1) ?? []),
  ];
  // Capabilities that share a reason (one missing login blocks several) are listed together.
  const byReason = new Map<string, { status: string; names: string[] }>();
  for (const [capability, value] of Object.entries(readiness.capabilities)) {
    if (capability === "node") continue; // said on the node line above
    if (!value || value.status === "ready" || value.status === "unsupported") continue;
    const key = `${value.status}\u0000${value.reason ?? ""}`;
    const entry = byReason.get(key) ?? { status: value.status, names: [] };
    entry.names.push(capability);
    byReason.set(key, entry);
  }
  for (const [key, entry] of byReason) {
    // One line per reason: a stderr tail a reason quotes is joined, and long ones cut.
    const joined = (key.split("\u0000")[1] ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean)
      .join(" | ");
    const reason = joined.length > 400 ? `${joined.slice(0, 400)}…` : joined;
    lines.push(`      ${entry.names.join(", ")}: ${entry.status}${reason ? ` — ${reason}` : ""}`);
    if (entry.status !== "degraded") {
      const capability = entry.names.includes("credentials") ? "credentials" : entry.names[0]!;
      lines.push(`        fix: ${fixFor(known, capability, reason)}`);
    }
  }
  return lines;
}

/** Which relay a run's stdio servers get, and why (the same check a run makes, in this process). */
function relayReport(env: Readonly<Record<string, string | undefined>>): {
  lines: string[];
  problem: boolean;
} {
  try {
    const relay = stdioRelayChoice(env[STDIO_RELAY_VARIABLE]);
    if (relay.kind === "native")
      return { lines: [`  native relay: ${relay.reason}`], problem: false };
    if (!relay.fallback) return { lines: [`  Node relay: ${relay.reason}`], problem: false };
    return {
      lines: [
        `  ! Node relay: ${relay.reason}`,
        `    the evidence is the same; to use the native relay: ${nativeRelayBuildCommand()}`,
      ],
      problem: false,
    };
  } catch (error) {
    const fix = `${nativeRelayBuildCommand()}, or unset ${STDIO_RELAY_VARIABLE}`;
    return { lines: [`  ✗ ${(error as Error).message} — fix: ${fix}`], problem: true };
  }
}

/** The lines of the doctor's report for the project in `cwd`, and whether it found a problem. */
export async function doctor(
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ lines: string[]; problems: number }> {
  const projectRequire = createRequire(join(cwd, "package.json"));
  const lines: string[] = [];
  let problems = 0;
  const version = (name: string): string => versionOf(projectRequire, name) ?? "not installed";

  lines.push(
    `jest-m3 doctor — ${cwd}`,
    "",
    "versions",
    `  node ${process.versions.node}   jest ${version("jest")}   jest-m3 ${version("jest-m3")}   typescript ${version("typescript")}   ts-jest ${version("ts-jest")}`,
  );
  if (!installed(projectRequire, "jest")) {
    problems += 1;
    lines.push("  ✗ jest is not installed — fix: npm install --save-dev jest jest-m3");
  }

  let config: M3Config | null = null;
  try {
    config = loadConfig(cwd);
    lines.push(
      `  configuration: ${config.source === "defaults" ? "defaults (no m3.config.json)" : config.source}`,
    );
  } catch (error) {
    problems += 1;
    lines.push(`  ✗ configuration: ${(error as Error).message}`);
  }

  const relay = relayReport(env);
  lines.push("", "stdio relay", ...relay.lines);
  if (relay.problem) problems += 1;

  lines.push("", "model providers");
  if (env.M3_PROVIDER === "live") {
    lines.push("  M3_PROVIDER=live: each harness uses its own login or credentials");
  } else if (config?.scriptedModel) {
    lines.push(`  scripted model (offline) from ${config.scriptedModel.script}`);
    if (!installed(projectRequire, "@jest-m3/scripted-model")) {
      problems += 1;
      lines.push(
        "  ✗ @jest-m3/scripted-model is not installed — fix: npm install --save-dev @jest-m3/scripted-model",
      );
    }
  } else {
    lines.push(
      "  none configured: agent tests use each harness's own login (add a scriptedModel to m3.config.json to run offline)",
    );
  }
  const credentials = [...new Set(KNOWN_HARNESSES.flatMap((harness) => harness.credentials))];
  lines.push(
    `  credentials in the environment: ${credentials.map((name) => `${name} ${env[name] ? "set" : "not set"}`).join(", ")}`,
  );

  lines.push("", "harnesses");
  const configured = new Set([
    ...(config?.harnesses ?? []),
    ...(config?.agents ?? []).map((entry) => entry.harness),
  ]);
  const names = [
    ...KNOWN_HARNESSES.filter(
      (harness) => installed(projectRequire, harness.packageName) || configured.has(harness.name),
    ).map((harness) => harness.name),
    ...[...configured].filter((name) => !KNOWN_HARNESSES.some((harness) => harness.name === name)),
  ];
  if (names.length === 0) {
    lines.push(
      "  none installed: direct tests need none; for agent tests, e.g.",
      `    ${KNOWN_HARNESSES[0]!.install} @jest-m3/scripted-model`,
    );
  }
  // With a scripted model configured, probe as a run would: with its provider.
  let providers: Partial<Record<ProviderDialect, ModelProvider>> | undefined;
  let stopModel: (() => Promise<void>) | undefined;
  if (config?.scriptedModel && env.M3_PROVIDER !== "live" && names.length > 0) {
    try {
      const scripted = await import("@jest-m3/scripted-model");
      const model = await scripted.startScriptedModel(config.scriptedModel.script);
      providers = providersOf(model);
      stopModel = () => model.close();
    } catch (error) {
      problems += 1;
      lines.push(
        `  ✗ the scripted model does not start: ${(error as Error).message.split("\n")[0]}`,
      );
    }
  }
  // The probes' own timers and child handles are unref'd (a kit must never hold a test
  // process open), so while a slow agent starts (Kilo Code: ten seconds and more) nothing
  // else would keep this command alive: Node would end it, silently and with status 0.
  const keepAlive = setInterval(() => undefined, 60_000);
  const reports = await Promise.all(
    [...new Set(names)].map(async (name) => {
      const known = KNOWN_HARNESSES.find((harness) => harness.name === name);
      if (known && !installed(projectRequire, known.packageName)) {
        return {
          bad: true,
          lines: [`  ✗ ${name}: ${known.packageName} is not installed — fix: ${known.install}`],
        };
      }
      let readiness: Readiness;
      try {
        const harness = resolveHarness(name, new Map(), env, cwd);
        const provider = providers
          ? harnessDialects(harness)
              .map((dialect) => providers[dialect])
              .find((one) => one !== undefined)
          : undefined;
        readiness = await harness.readiness({
          selection: {
            harness: name,
            model: "readiness-probe",
            name,
            credentialEnv: {},
            options: {},
            ...(provider ? { provider } : {}),
          },
          config: env,
          credentialNames: [],
        });
      } catch (error) {
        return { bad: true, lines: [`  ✗ ${name}: ${(error as Error).message.split("\n")[0]}`] };
      }
      const nodeOk = agentNodeLine(known, readiness, projectRequire)?.ok !== false;
      return {
        bad: !readiness.ready || !nodeOk,
        lines: readinessLines(name, known, readiness, projectRequire),
      };
    }),
  );
  clearInterval(keepAlive);
  await stopModel?.().catch(() => undefined);
  for (const report of reports) {
    if (report.bad) problems += 1;
    lines.push(...report.lines);
  }
  if (!existsSync(join(cwd, "jest.config.js")) && !existsSync(join(cwd, "jest.config.ts"))) {
    const manifest = join(cwd, "package.json");
    const inManifest =
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { jest?: unknown }).jest;
    if (!inManifest) {
      problems += 1;
      lines.push("", '✗ no Jest configuration with preset "jest-m3" — fix: npx jest-m3 init');
    }
  }
  lines.push("", problems === 0 ? "All set." : `${problems} problem(s) found.`);
  return { lines, problems };
}
