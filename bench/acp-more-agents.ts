// A two-turn ACP session per new ACP profile (Kilo Code, GitHub Copilot CLI, Qwen Code) through the
// kit vs a bare ACP driver of the same binary: the official SDK's client() and nothing
// else, with the same binary, flags and settings as the profile (Kilo: its inline
// configuration and KILO_* switches; Copilot: its provider variables, the server at launch
// in --additional-mcp-config and none in session/new, the tool flags, the shared unpacked
// folder; Qwen: its settings file and QWEN_CODE_* switches, its script on the Node 22 the
// profile's runtime finds), the same scripted model, server and prompts. The driver, rounds and report are
// bench/acp-session.ts's.
//
// Run on its own: `npx tsx bench/acp-more-agents.ts [kilo] [copilot] [qwen]` (after `npm run build`).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  copilotDistDir,
  copilotHarness,
  copilotMcpConfig,
  copilotProfile,
  copilotToolFlags,
  kiloHarness,
  kiloPermissions,
  kiloProfile,
  opencodeConfig,
  qwenHarness,
  qwenProfile,
  qwenSettings,
} from "@jest-m3/harness-acp";
import type { CapturedServer } from "@jest-m3/core/harness";
import { BARE_SERVER, benchAcpAgents, type BenchAcpAgent } from "./acp-session";

const MODEL = "scripted-1";
/** What the profile turns off, each `KILO_DISABLE_<name>=true`. */
const KILO_DISABLED = [
  "PROJECT_CONFIG",
  "MODELS_FETCH",
  "AUTOUPDATE",
  "SHARE",
  "SESSION_INGEST",
  "DEFAULT_PLUGINS",
  "LSP_DOWNLOAD",
  "CLAUDE_CODE",
];

/** Kilo Code, GitHub Copilot CLI and Qwen Code, as the benchmark drives them. */
export const MORE_ACP_AGENTS: readonly BenchAcpAgent[] = [
  {
    name: "kilo",
    label: "Kilo Code",
    dialect: "chat-completions",
    profile: kiloProfile,
    harness: kiloHarness,
    bare({ env, provider, policy }) {
      const { $schema: _schema, ...config } = opencodeConfig(
        provider,
        MODEL,
        kiloPermissions(policy, ["shipping"], false),
      );
      env.KILO_CONFIG_CONTENT = JSON.stringify(config);
      for (const off of KILO_DISABLED) env[`KILO_DISABLE_${off}`] = "true";
      return Promise.resolve({ args: ["acp", "--pure"], mcpServers: [BARE_SERVER] });
    },
  },
  {
    name: "copilot",
    label: "GitHub Copilot CLI",
    dialect: "chat-completions",
    profile: copilotProfile,
    harness: copilotHarness,
    // Copilot drops stdio servers sent in session/new: the server goes in at launch.
    async bare({ root, env, provider, policy, executable }) {
      const server = {
        kind: "stdio",
        name: BARE_SERVER.name,
        command: BARE_SERVER.command,
        args: BARE_SERVER.args,
        env: {},
      } as unknown as CapturedServer;
      Object.assign(env, {
        COPILOT_HOME: join(root, "home", "copilot-home"),
        COPILOT_CLI_DIST_DIR: await copilotDistDir(executable),
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        COPILOT_MODEL: MODEL,
        COPILOT_PROVIDER_BASE_URL: provider.baseUrl,
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_WIRE_API: "completions",
      });
      return {
        args: [
          "--acp",
          "--no-auto-update",
          "--disable-builtin-mcps",
          "--no-custom-instructions",
          "--no-ask-user",
          `--additional-mcp-config=${JSON.stringify(copilotMcpConfig([server], policy))}`,
          ...copilotToolFlags(policy, ["shipping"]),
        ],
        mcpServers: [],
      };
    },
  },
  {
    name: "qwen",
    label: "Qwen Code",
    dialect: "chat-completions",
    profile: qwenProfile,
    harness: qwenHarness,
    // Its script on the Node 22 the profile's runtime finds; the profile's settings file.
    async bare({ root, env, provider }) {
      const settings = join(root, "home", ".qwen");
      await mkdir(settings, { recursive: true });
      await writeFile(join(settings, "settings.json"), JSON.stringify(qwenSettings(MODEL, [])));
      Object.assign(env, {
        QWEN_CODE_NO_RELAUNCH: "true",
        QWEN_CODE_LEGACY_MCP_BLOCKING: "1",
        OPENAI_MODEL: MODEL,
        OPENAI_BASE_URL: provider.baseUrl,
        OPENAI_API_KEY: "m3-no-key",
      });
      return { args: ["--acp", "--approval-mode", "default"], mcpServers: [BARE_SERVER] };
    },
  },
];

/** The benchmark on Kilo Code, GitHub Copilot CLI and Qwen Code (`agents`: those by name). */
export function benchAcpMoreAgents({
  rounds,
  // Kilo Code, OpenCode's fork (acp-session measures OpenCode), takes 15 to 60 s a session
  // on this machine, three quarters of the full run's budget: by name,
  // `npx tsx bench/acp-more-agents.ts kilo copilot qwen`.
  agents = ["copilot", "qwen"],
}: { rounds?: number; agents?: readonly string[] } = {}): Promise<void> {
  return benchAcpAgents("acp more agents", MORE_ACP_AGENTS, {
    ...(rounds !== undefined ? { rounds } : {}),
    names: agents,
  });
}

if (require.main === module) {
  const agents = process.argv.slice(2);
  benchAcpMoreAgents(agents.length > 0 ? { agents } : {}).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
