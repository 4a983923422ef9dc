import type { HarnessLaunch, ModelProvider, ProviderDialect } from "@jest-m3/core/harness";
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
 * The flags that keep Pi to itself, for every start (a session's, a readiness probe's): no
 * session file, no discovered extensions, skills, prompt templates, themes or context
 * files, no project-local files, no MCP of its own, no network of its own.
 */
export const ISOLATION_FLAGS: readonly string[] = [
  "--no-session",
  "--no-extensions",
  "--no-skills",
  "--no-prompt-templates",
  "--no-themes",
  "--no-context-files",
  "--no-mcp",
  "--offline",
  "--no-approve",
];

/**
 * The command line of one Pi session, after Pi's script: RPC mode, the provider's model,
 * the {@link ISOLATION_FLAGS}, only the bridge extension, and no built-in tools unless the
 * options ask (then `--tools` names them and every bridge tool, `mcp_*`). Every value is a
 * constant, a name or a path: never a credential.
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
  const provider = launch.provider ? ["--provider", launch.provider.name] : [];
  const bridge = ["--extension", extension];
  return [
    "--mode",
    "rpc",
    ...provider,
    "--model",
    launch.model,
    ...ISOLATION_FLAGS,
    ...bridge,
    ...tools,
  ];
}
