import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import type { Capability, CapturedServer, ToolPolicy } from "@jest-m3/core/harness";
import {
  providerCredentials,
  testedRange,
  type FoundExecutable,
  type InstalledBinary,
} from "@jest-m3/core/adapter-kit";
import { allowedTools } from "../config.js";
import { InvalidAcpOptions } from "../errors.js";
import { agentEnvironment } from "../home.js";
import { resolveProfileOptions, type ResolvedCommonOptions } from "../options.js";
import { mayBeMcpTool, type AgentToolCall, type SessionTools } from "../reported-calls.js";
import { identifyFlattened, type ToolIdentity, type ToolNaming } from "../tool-names.js";
import { COPILOT_HOME_FOLDER, copilotTurnFailure } from "./copilot-turn-failure.js";
import type { AcpProfile } from "./profile.js";
import { profileExecutable } from "./lookup.js";

/** The GitHub Copilot CLI versions this profile is tested with. */
export const COPILOT_TESTED = testedRange("1.0.102", "1.1.0", "@github/copilot");

/** The configuration variable naming the Copilot CLI executable. */
export const COPILOT_EXECUTABLE_VARIABLE = "M3_COPILOT_EXECUTABLE";

/** Copilot CLI 1.0: an MCP tool is `<server>-<tool>` (a hyphen; both parts as given). */
export const copilotNaming: ToolNaming = {
  agent: "GitHub Copilot CLI",
  rule: "<server>-<tool>",
  name: (server, tool) => `${server}-${tool}`,
  prefix: (server) => `${server}-`,
};

/**
 * The single executable of an installed `@github/copilot`: its platform package
 * (`@github/copilot-<platform>-<arch>`, `linuxmusl` on musl), spawned directly rather than
 * through the package's Node loader.
 */
export function installedCopilotBinary(): InstalledBinary {
  const file = process.platform === "win32" ? "copilot.exe" : "copilot";
  const tried: string[] = [];
  for (const platform of [process.platform, `${process.platform}musl`]) {
    const name = `@github/copilot-${platform}-${process.arch}`;
    for (const base of [process.cwd(), __dirname]) {
      try {
        // The package exports only its executable (not its package.json).
        const binary = require.resolve(name, { paths: [base] });
        if (basename(binary) === file && existsSync(binary)) return { path: binary };
        tried.push(binary);
      } catch {
        tried.push(`${name} (not installed)`);
      }
    }
  }
  return { tried: [...new Set(tried)] };
}

/**
 * The session's MCP servers as Copilot's `--additional-mcp-config` JSON: Copilot drops the
 * stdio servers a client sends in `session/new`, so the captured relays are given at launch
 * (`type: "local"`), each with its allowed tools (`["*"]` for all). HTTP servers are left
 * to `session/new` (Copilot takes those there), so none is given twice.
 */
export function copilotMcpConfig(
  servers: readonly CapturedServer[],
  policy: ToolPolicy,
): { mcpServers: Record<string, unknown> } {
  const mcpServers: Record<string, unknown> = {};
  for (const server of servers) {
    if (server.kind === "http") continue;
    mcpServers[server.name] = {
      type: "local",
      command: server.command,
      args: [...server.args],
      env: { ...server.env },
      tools: [...(allowedTools(policy, server.name) ?? ["*"])],
    };
  }
  return { mcpServers };
}

/**
 * Copilot CLI 1.0.102's own tools (as its "Disabled tools" notice lists them), hidden with
 * `--excluded-tools` when a server's tools are not all named.
 */
export const COPILOT_BUILTIN_TOOLS: readonly string[] = [
  "bash",
  "create",
  "edit",
  "glob",
  "grep",
  "list_agents",
  "list_bash",
  "read_agent",
  "read_bash",
  "sql",
  "stop_bash",
  "task",
  "view",
  "write_agent",
];

/**
 * The allow-list as Copilot's flags. The MCP tools a server offers at all are its
 * `tools` in the launch configuration ({@link copilotMcpConfig}). When every allowed tool
 * is named, `--available-tools` lists them as `<server>-<tool>` with `builtinTools` (the
 * model sees nothing else); when a server's tools are all allowed (names unknown before it
 * starts; Copilot takes no wildcard there), `--excluded-tools` hides Copilot's own tools
 * but `builtinTools`. `--allow-tool` approves the allowed ones without a permission request.
 */
export function copilotToolFlags(
  policy: ToolPolicy,
  servers: readonly string[],
  builtinTools: readonly string[] = [],
): string[] {
  const available: string[] = [...builtinTools];
  const allow: string[] = [...builtinTools];
  let everyToolNamed = true;
  for (const server of servers) {
    const tools = allowedTools(policy, server);
    if (tools === undefined) {
      everyToolNamed = false;
      allow.push(server);
      continue;
    }
    for (const tool of tools) {
      available.push(copilotNaming.name(server, tool));
      allow.push(`${server}(${tool})`);
    }
  }
  const excluded = COPILOT_BUILTIN_TOOLS.filter((tool) => !builtinTools.includes(tool));
  const flags = everyToolNamed
    ? [`--available-tools=${available.join(",")}`]
    : excluded.length > 0
      ? [`--excluded-tools=${excluded.join(",")}`]
      : [];
  if (allow.length > 0) flags.push(`--allow-tool=${allow.join(",")}`);
  return flags;
}

/**
 * Copilot's MCP identity of a call: its `kind` must be `other` and its title the
 * `<server>-<tool>` name of a tool of the session (the model's call id says nothing).
 */
export function identifyCopilotCall(
  call: AgentToolCall,
  { servers, policy }: SessionTools,
): ToolIdentity | undefined {
  if (!mayBeMcpTool(call) || !call.title || /\s/.test(call.title)) return undefined;
  return identifyFlattened(copilotNaming, call.title, servers, policy);
}

const unpacked = new Map<string, Promise<string>>();

function run(command: string, args: readonly string[], env: Record<string, string>) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(" ")} exited (code ${code}): ${stderr}`)),
    );
  });
}

/**
 * The folder Copilot's first start unpacks itself into (about 235 MB), made once per
 * binary and shared: by every session of this process, and through the system's temporary
 * folder by every worker and run, each session then given it as `COPILOT_CLI_DIST_DIR`
 * (nothing unpacked per session). Unpacked in a staging folder and renamed into place, so
 * parallel workers never see half of it.
 */
export function copilotDistDir(executable: FoundExecutable): Promise<string> {
  const known = unpacked.get(executable.path);
  if (known) return known;
  const made = (async () => {
    const info = await stat(executable.path);
    const root = join(
      tmpdir(),
      "m3-copilot-dist",
      `${info.size}-${Math.trunc(info.mtimeMs)}`.replace(/[^0-9-]/g, ""),
    );
    const dist = join(root, "dist");
    const ready = await readdir(dist).catch(() => []);
    if (ready.length === 1) return join(dist, ready[0] as string);
    await mkdir(root, { recursive: true });
    const staging = await mkdtemp(join(root, "staging-"));
    try {
      await run(executable.command, [...executable.prefix, "--version"], {
        PATH: process.env.PATH ?? "",
        HOME: staging,
        XDG_CACHE_HOME: staging,
        XDG_CONFIG_HOME: staging,
        XDG_STATE_HOME: staging,
        COPILOT_HOME: join(staging, "copilot-home"),
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        TMPDIR: staging,
      });
      const pkg = join(staging, "copilot", "pkg");
      const [platform] = await readdir(pkg);
      const [version] = await readdir(join(pkg, platform as string));
      await mkdir(dist, { recursive: true });
      await rename(
        join(pkg, platform as string, version as string),
        join(dist, version as string),
      ).catch(async (error: unknown) => {
        // Another worker was first: use its copy.
        if ((await readdir(dist)).includes(version as string)) return;
        throw error;
      });
      return join(dist, version as string);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  })();
  unpacked.set(executable.path, made);
  made.catch(() => unpacked.delete(executable.path));
  return made;
}

/**
 * GitHub Copilot CLI (`copilot --acp`, `@github/copilot` 1.0): its own provider ("bring
 * your own key") through `COPILOT_PROVIDER_*` in the Chat Completions dialect, the key
 * given as a variable the agent reads (never written), offline mode, no auto-update, no
 * built-in MCP servers or custom instructions; the session's stdio MCP servers at launch
 * (`--additional-mcp-config`); the allow-list as `--available-tools` and `--allow-tool`;
 * the first start's unpacking done once and shared; a provider error it reports as answer
 * text fails the turn (confirmed by its session log). Stopped by closing stdin.
 *
 * @example
 * ```ts
 * const [copilot] = kit.agents([
 *   { harness: "copilot", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
 * ]);
 * ```
 */
export const copilotProfile: AcpProfile<ResolvedCommonOptions> = {
  name: "copilot",
  agent: "GitHub Copilot CLI",
  dialects: ["chat-completions"],
  tested: COPILOT_TESTED,
  elicitation: {
    status: "unsupported",
    reason: "GitHub Copilot CLI 1.0 does not forward an MCP server's elicitation over ACP",
  },
  resolveOptions(options) {
    const resolved = resolveProfileOptions("copilot", options);
    if (resolved.exposeDisallowedTools) {
      throw new InvalidAcpOptions(
        "copilot",
        "exposeDisallowedTools",
        "is not offered for GitHub Copilot CLI: its permission requests name a tool without its server, so the adapter could not tell which server's tool it refuses. Leave it out: the tools outside the allow-list are not offered to the model (--available-tools).",
      );
    }
    return resolved;
  },
  executable: profileExecutable(
    "GitHub Copilot CLI",
    COPILOT_EXECUTABLE_VARIABLE,
    COPILOT_TESTED,
    "copilot",
    installedCopilotBinary,
  ),
  credentials(provider, names): Capability {
    const viaProvider = providerCredentials(provider, names);
    if (viaProvider) return viaProvider;
    if (!provider) {
      return {
        status: "unavailable",
        reason:
          "GitHub Copilot CLI runs here only with a provider of your own (its GitHub login is not copied into the isolated home): " +
          'give a provider (the scripted model\'s providerFor("chat-completions"))',
      };
    }
    return { status: "ready" };
  },
  async plan({ launch, home, options, executable }) {
    const provider = launch.provider;
    const names = launch.servers.map((server) => server.name);
    const dist = await copilotDistDir(executable);
    // The key stays a variable: Copilot reads it from COPILOT_PROVIDER_API_KEY.
    const key =
      provider?.envKey !== undefined && launch.env[provider.envKey] !== undefined
        ? { name: provider.envKey, value: launch.env[provider.envKey] as string }
        : undefined;
    return {
      args: [
        "--acp",
        "--no-auto-update",
        "--disable-builtin-mcps",
        "--no-custom-instructions",
        "--no-ask-user",
        `--additional-mcp-config=${JSON.stringify(copilotMcpConfig(launch.servers, launch.toolPolicy))}`,
        ...copilotToolFlags(launch.toolPolicy, names, options.builtinTools),
        `--secret-env-vars=${["COPILOT_PROVIDER_API_KEY", ...(key !== undefined ? [key.name] : [])].join(",")}`,
      ],
      env: agentEnvironment(launch.env, home, {
        COPILOT_HOME: join(home.root, COPILOT_HOME_FOLDER),
        COPILOT_CLI_DIST_DIR: dist,
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        COPILOT_MODEL: launch.model,
        ...(provider
          ? {
              COPILOT_PROVIDER_BASE_URL: provider.baseUrl,
              COPILOT_PROVIDER_TYPE: "openai",
              COPILOT_PROVIDER_WIRE_API: "completions",
              ...(key !== undefined ? { COPILOT_PROVIDER_API_KEY: key.value } : {}),
            }
          : {}),
      }),
    };
  },
  turnFailure: copilotTurnFailure,
  stop: () => "stdin",
  naming: copilotNaming,
  identify: identifyCopilotCall,
};
