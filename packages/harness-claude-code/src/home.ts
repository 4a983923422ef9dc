import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  agentCredentials,
  copyRegularFile,
  createHomes as createFolders,
  homeEnvironment,
  regularFile,
} from "@jest-m3/core/adapter-kit";
import type { Capability, ModelProvider } from "@jest-m3/core/harness";
import type { ResolvedClaudeCodeOptions } from "./options.js";

/** The configuration variable naming the Claude Code config dir that holds the user's login. */
export const HOST_CONFIG_VARIABLE = "M3_CLAUDE_CONFIG_DIR";

/** The environment variables Claude Code reads a key or token from, in its order. */
export const KEY_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
];

/**
 * What Claude Code gets as its key when the provider needs none (the scripted model): a
 * constant, never a secret. Claude Code refuses to start a turn without some key.
 */
export const PLACEHOLDER_KEY = "jest-m3-no-key";

/** The isolated homes of one Claude Code process. */
export interface ClaudeHomes {
  /** The fresh `HOME` (Claude Code's caches and MCP logs). */
  readonly home: string;
  /** The fresh `CLAUDE_CONFIG_DIR` (`.claude.json`, backups, the copied login). */
  readonly configDir: string;
}

/** Whether the user's Claude Code login can be used, and its files. */
export type HostLogin =
  | {
      readonly usable: true;
      /** `.credentials.json` (the OAuth login). */
      readonly credentialsFile: string;
      /** `.claude.json` (the account), when there is one. */
      readonly accountFile: string | undefined;
    }
  | { readonly usable: false; readonly reason: string };

/**
 * Where the user running the tests keeps their Claude Code login: `M3_CLAUDE_CONFIG_DIR`,
 * else `CLAUDE_CONFIG_DIR`, else `HOME/.claude`, from the kit's configuration first and
 * this process's environment second. The account file `.claude.json` sits inside an
 * explicit config dir, else in HOME.
 */
export function hostClaudeConfig(config: Readonly<Record<string, string | undefined>>): {
  readonly configDir: string;
  readonly accountFile: string;
} {
  const explicit =
    config[HOST_CONFIG_VARIABLE] || config.CLAUDE_CONFIG_DIR || process.env.CLAUDE_CONFIG_DIR;
  if (explicit) {
    const configDir = resolve(explicit);
    return { configDir, accountFile: join(configDir, ".claude.json") };
  }
  const home = config.HOME || homedir();
  return { configDir: join(home, ".claude"), accountFile: join(home, ".claude.json") };
}

/** Checks, without reading them, that the user's login files exist and are regular files. */
export function findHostLogin(config: Readonly<Record<string, string | undefined>>): HostLogin {
  const { configDir, accountFile } = hostClaudeConfig(config);
  const credentialsFile = join(configDir, ".credentials.json");
  const credentials = regularFile(credentialsFile);
  if (!credentials.ok) {
    return {
      usable: false,
      reason: `no usable Claude Code login: ${credentials.reason} (run \`claude\` and /login, set ${HOST_CONFIG_VARIABLE}, give credentialEnv: { ANTHROPIC_API_KEY: "<PARENT_VARIABLE>" }, or give the selection a provider such as the scripted model's)`,
    };
  }
  const account = regularFile(accountFile);
  return { usable: true, credentialsFile, accountFile: account.ok ? accountFile : undefined };
}

/**
 * Whether the session has something to authenticate with: a provider (with its key
 * variable mapped, when it names one), else a mapped Anthropic key or token, else the
 * user's Claude Code login.
 */
export function credentialsCapability(
  provider: ModelProvider | undefined,
  credentialNames: readonly string[],
  login: HostLogin,
): Capability {
  return agentCredentials(provider, credentialNames, {
    named: (names) =>
      names.some((name) => KEY_VARIABLES.includes(name))
        ? { status: "ready" }
        : {
            status: "unavailable",
            reason:
              `credentials (${names.join(", ")}) were given without a provider, but Claude Code reads ` +
              `its key from ${KEY_VARIABLES.join(", ")}; map one of those, e.g. credentialEnv: { ANTHROPIC_API_KEY: "${names[0]}" }`,
          },
    login,
  });
}

/**
 * Creates `HOME` and `CLAUDE_CONFIG_DIR` inside `root`, a fresh directory owned by the kit,
 * with the user's login copied in when `login` is given (see {@link copyHostLogin}).
 */
export async function createHomes(
  root: string,
  login?: Extract<HostLogin, { usable: true }>,
): Promise<ClaudeHomes> {
  const homes = await createFolders(root, { home: "home", configDir: "claude-config" });
  if (login !== undefined) await copyHostLogin(login, homes);
  return homes;
}

/**
 * Copies the user's login (`.credentials.json`, and `.claude.json` when there is one) into
 * the fresh `CLAUDE_CONFIG_DIR` (mode 0600). A symbolic link is refused, also when it
 * appears between the check and the copy.
 */
export async function copyHostLogin(
  login: Extract<HostLogin, { usable: true }>,
  homes: ClaudeHomes,
): Promise<void> {
  await copyRegularFile(login.credentialsFile, join(homes.configDir, ".credentials.json"));
  if (login.accountFile !== undefined) {
    await copyRegularFile(login.accountFile, join(homes.configDir, ".claude.json"));
  }
}

/**
 * Claude Code's environment: the launch's (an allow-list of the parent's plus the mapped
 * credentials) with the fresh homes, no telemetry, update or error-report traffic, the
 * retry and MCP timeouts of the options, and the provider: `ANTHROPIC_BASE_URL`, and its
 * key under a name Claude Code reads (a provider's `envKey` is renamed to
 * `ANTHROPIC_API_KEY`; a provider without a key gets {@link PLACEHOLDER_KEY}). Never the
 * parent's whole environment.
 */
export function claudeEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  homes: ClaudeHomes,
  provider: ModelProvider | undefined,
  options: ResolvedClaudeCodeOptions,
): Record<string, string> {
  const env = homeEnvironment(launchEnv, homes.home, {
    CLAUDE_CONFIG_DIR: homes.configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries),
    MCP_TIMEOUT: String(options.startupTimeoutMs),
    MCP_TOOL_TIMEOUT: String(options.toolTimeoutMs),
  });
  if (provider) {
    env.ANTHROPIC_BASE_URL = provider.baseUrl.replace(/\/+$/, "");
    const key = provider.envKey;
    if (key !== undefined && !KEY_VARIABLES.includes(key) && env[key] !== undefined) {
      env.ANTHROPIC_API_KEY = env[key];
      delete env[key];
    }
    if (!KEY_VARIABLES.some((name) => env[name] !== undefined && env[name] !== "")) {
      env.ANTHROPIC_API_KEY = PLACEHOLDER_KEY;
    }
  }
  return env;
}
