import type { HarnessLaunch, ModelProvider, ProviderDialect } from "@jest-m3/core/harness";
import type { BridgeConfig, BridgeServer } from "./bridge-config.js";
import type { ResolvedPiOptions } from "./options.js";

/**
 * The dialects this adapter gives Pi, preferred first, with Pi's name (`api`) for each.
 * Responses first: Pi sends its session id as `prompt_cache_key` there, so a model server
 * (the scripted model) tells one Pi session from another; over Chat Completions Pi sends
 * no conversation id at all.
 */
export const PI_APIS: Readonly<Partial<Record<ProviderDialect, string>>> = {
  responses: "openai-responses",
  "chat-completions": "openai-completions",
  "anthropic-messages": "anthropic-messages",
};

/** The dialects of {@link PI_APIS}, as the harness declares them. */
export const PI_DIALECTS = Object.keys(PI_APIS) as ProviderDialect[];

/**
 * The variable a provider without a key points Pi at: Pi reads `apiKey` as the name of an
 * environment variable when one is set, and this one holds a constant, never a secret.
 */
export const PLACEHOLDER_KEY_VARIABLE = "M3_PI_NO_KEY";

/** The constant in {@link PLACEHOLDER_KEY_VARIABLE}. */
export const PLACEHOLDER_KEY = "jest-m3-no-key";

/**
 * Pi's `models.json` for a provider: one custom provider named as the provider, with the
 * selection's model, its endpoint, its dialect as Pi's `api`, and as `apiKey` the NAME of
 * the variable holding the key (Pi resolves it from its environment; the value is never
 * written).
 */
export function modelsJson(provider: ModelProvider, model: string): Record<string, unknown> {
  const api = PI_APIS[provider.wireApi];
  if (api === undefined) {
    throw new Error(`Pi is not given the ${provider.wireApi} dialect by this adapter`);
  }
  return {
    providers: {
      [provider.name]: {
        baseUrl: provider.baseUrl.replace(/\/+$/, ""),
        api,
        apiKey: provider.envKey ?? PLACEHOLDER_KEY_VARIABLE,
        // The system prompt as a `system` message, and no reasoning parameters.
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [
          {
            id: model,
            name: model,
            reasoning: false,
            input: ["text"],
            contextWindow: 128_000,
            maxTokens: 4096,
          },
        ],
      },
    },
  };
}

/**
 * Pi's `settings.json` in the isolated agent dir: retries as the options say (none by
 * default), and nothing that sends requests of its own (no compaction, no cache warming,
 * no install telemetry); project-local files never trusted.
 */
export function settingsJson(options: ResolvedPiOptions): Record<string, unknown> {
  return {
    retry: {
      enabled: options.maxRetries > 0,
      maxRetries: options.maxRetries,
      provider: { maxRetries: 0 },
    },
    compaction: { enabled: false },
    cacheWarming: "off",
    enableInstallTelemetry: false,
    defaultProjectTrust: "never",
    defaultThinkingLevel: "off",
    quietStartup: true,
  };
}

/**
 * The command line of one Pi session, after Pi's script: RPC mode, the provider's model,
 * no session file, no discovered extensions, skills, prompt templates, themes, context
 * files, project-local files or Pi's own MCP, only the bridge extension, and no built-in
 * tools unless the options ask (then `--tools` names them and every bridge tool, `mcp_*`).
 * Every value is a constant, a name or a path: never a credential.
 */
export function piArgs(
  launch: Pick<HarnessLaunch, "model" | "provider">,
  options: ResolvedPiOptions,
  extension: string,
): string[] {
  const tools =
    options.builtinTools === "default"
      ? []
      : options.builtinTools.length === 0
        ? ["--no-builtin-tools"]
        : ["--tools", [...options.builtinTools, "mcp_*"].join(",")];
  return [
    "--mode",
    "rpc",
    ...(launch.provider ? ["--provider", launch.provider.name] : []),
    "--model",
    launch.model,
    "--no-session",
    "--no-extensions",
    "--extension",
    extension,
    "--no-skills",
    "--no-prompt-templates",
    "--no-themes",
    "--no-context-files",
    "--no-mcp",
    ...tools,
    "--offline",
    "--no-approve",
  ];
}

/** One captured server as the bridge connects to it: exactly the capture's command or URL. */
export function bridgeServer(server: HarnessLaunch["servers"][number]): BridgeServer {
  return server.kind === "http"
    ? { kind: "http", name: server.name, url: server.url, headers: { ...server.headers } }
    : {
        kind: "stdio",
        name: server.name,
        command: server.command,
        args: [...server.args],
        env: { ...server.env },
        cwd: server.cwd,
      };
}

/** The bridge's configuration: the captured servers, the allow-list, the status file. */
export function bridgeConfig(
  launch: Pick<HarnessLaunch, "servers" | "toolPolicy">,
  statusFile: string,
  options: ResolvedPiOptions,
): BridgeConfig {
  const allow: Record<string, readonly string[] | null> = {};
  for (const server of launch.servers) {
    if (!launch.toolPolicy.has(server.name)) continue;
    const tools = launch.toolPolicy.get(server.name);
    allow[server.name] = tools === undefined ? null : [...tools];
  }
  return {
    servers: launch.servers.map(bridgeServer),
    allow,
    statusFile,
    toolTimeoutMs: options.toolTimeoutMs,
    startupTimeoutMs: options.startupTimeoutMs,
  };
}
