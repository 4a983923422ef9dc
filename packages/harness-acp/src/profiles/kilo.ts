import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { testedRange, type InstalledBinary } from "@jest-m3/core/adapter-kit";
import { agentEnvironment } from "../home.js";
import { resolveProfileOptions, type ResolvedCommonOptions } from "../options.js";
import { opencodeNaming } from "../tool-names.js";
import { identifyOpencodeCall, opencodeConfig, opencodePermissions } from "./opencode.js";
import type { AcpProfile } from "./profile.js";
import { profileExecutable, providerModelCredentials } from "./lookup.js";

/** The Kilo Code CLI versions this profile is tested with. */
export const KILO_TESTED = testedRange("7.7.7", "7.8.0", "@kilocode/cli");

/** The configuration variable naming the Kilo Code executable. */
export const KILO_EXECUTABLE_VARIABLE = "M3_KILO_EXECUTABLE";

/**
 * The native binary of an installed `@kilocode/cli`: its platform package
 * (`@kilocode/cli-<platform>-<arch>[-baseline][-musl]`), spawned directly rather than
 * through the package's Node launcher.
 */
export function installedKiloBinary(): InstalledBinary {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const file = process.platform === "win32" ? "kilo.exe" : "kilo";
  const tried: string[] = [];
  for (const variant of ["", "-baseline", "-musl", "-baseline-musl"]) {
    const name = `@kilocode/cli-${platform}-${process.arch}${variant}`;
    for (const base of [process.cwd(), __dirname]) {
      try {
        const manifest = require.resolve(`${name}/package.json`, { paths: [base] });
        const binary = join(dirname(manifest), "bin", file);
        if (existsSync(binary)) return { path: binary };
        tried.push(binary);
      } catch {
        // Not installed from this base.
      }
    }
  }
  if (tried.length === 0) tried.push(`${KILO_TESTED.packageName} (no platform package installed)`);
  return { tried: [...new Set(tried)] };
}

/**
 * Kilo Code's permission map: OpenCode's (Kilo is an OpenCode fork with the same
 * configuration schema and the same `<server>_<tool>` names), with Kilo's name in the
 * message of a `builtinTools` entry that reads as an MCP tool.
 */
export function kiloPermissions(
  ...[policy, servers, expose, builtinTools]: Parameters<typeof opencodePermissions>
): ReturnType<typeof opencodePermissions> {
  return opencodePermissions(policy, servers, expose, builtinTools, {
    harness: "kilo",
    agent: "Kilo Code",
  });
}

/**
 * Kilo Code CLI (`kilo acp`, `@kilocode/cli` 7.7): the OpenCode profile with Kilo's names.
 * The configuration is OpenCode's (the provider as an OpenAI-compatible one whose key is
 * referenced as `{env:NAME}`, never its value; the allow-list as the permission map),
 * given inline in `KILO_CONFIG_CONTENT`, project configuration, model fetches, updates,
 * sharing, session ingest, telemetry and default plugins off; stopped by closing stdin.
 * Warm by default, as OpenCode: `warm: false` gives a session a `kilo acp` process of its own.
 *
 * @example
 * ```ts
 * const [kilo] = kit.agents([
 *   { harness: "kilo", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
 * ]);
 * ```
 */
export const kiloProfile: AcpProfile<ResolvedCommonOptions> = {
  name: "kilo",
  agent: "Kilo Code",
  dialects: ["chat-completions"],
  tested: KILO_TESTED,
  elicitation: {
    status: "unsupported",
    reason:
      "Kilo Code 7.7 is an OpenCode fork whose MCP client declares no elicitation capability, so an MCP server's elicitation/create never reaches ACP",
  },
  // Warm by default: its fault matrix passes every cell warm (agent-matrix-kilo-warm), with
  // no limit of sessions a process (eight sessions at once on one process pass its load
  // cell), so `warmSessions` is left out.
  resolveOptions: (options) => resolveProfileOptions("kilo", options, { warm: true }),
  executable: profileExecutable(
    "Kilo Code",
    KILO_EXECUTABLE_VARIABLE,
    KILO_TESTED,
    "kilo",
    installedKiloBinary,
  ),
  credentials: providerModelCredentials("Kilo Code"),
  plan({ launch, home, options }) {
    const permission = kiloPermissions(
      launch.toolPolicy,
      launch.servers.map((server) => server.name),
      options.exposeDisallowedTools,
      options.builtinTools,
    );
    const { $schema: _schema, ...config } = opencodeConfig(
      launch.provider,
      launch.model,
      permission,
    );
    return Promise.resolve({
      args: ["acp", "--pure"],
      env: agentEnvironment(launch.env, home, {
        KILO_CONFIG_CONTENT: JSON.stringify(config),
        KILO_DISABLE_PROJECT_CONFIG: "true",
        KILO_DISABLE_MODELS_FETCH: "true",
        KILO_DISABLE_AUTOUPDATE: "true",
        KILO_DISABLE_SHARE: "true",
        KILO_DISABLE_SESSION_INGEST: "true",
        KILO_DISABLE_DEFAULT_PLUGINS: "true",
        KILO_DISABLE_LSP_DOWNLOAD: "true",
        KILO_DISABLE_CLAUDE_CODE: "true",
        // Telemetry on, Kilo Code waits 2 s at exit for PostHog (offline: a timeout) before
        // it ends; off, it exits at once after stdin closes.
        KILO_TELEMETRY_LEVEL: "off",
      }),
    });
  },
  stop: () => "stdin",
  naming: opencodeNaming,
  identify: identifyOpencodeCall,
};
