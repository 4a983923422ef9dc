import { isSecretName, optionReader, type OptionReader } from "@jest-m3/core/adapter-kit";
import { PROVIDER_DIALECTS, type ProviderDialect } from "@jest-m3/core/harness";
import { InvalidAcpOptions } from "./errors.js";
import type { StopSignal } from "./acp-client.js";

/**
 * Options every ACP harness kind takes, as a selection's `options`.
 *
 * @example
 * ```ts
 * kit.agents([{ harness: "gemini", models: ["scripted-1"], options: { startupTimeoutMs: 60_000 } }]);
 * ```
 */
export interface CommonAcpOptions {
  /**
   * Offer the model every tool of every server, and enforce the allow-list only by
   * refusing the agent's permission requests and at the wire. Default `false`: tools
   * outside the allow-list are also hidden by the agent's own permission system. Use it to
   * test how an agent copes with a denied call.
   */
  readonly exposeDisallowedTools?: boolean;
  /** How long the agent gets to answer `initialize` and `session/new`, in ms (default 60 000). */
  readonly startupTimeoutMs?: number;
  /**
   * Gemini CLI and OpenCode only: reuse one agent process per worker for sessions started
   * with exactly the same executable, arguments, environment (credentials included) and
   * home files (policy, configuration). Each session is still its own ACP session with its
   * own workspace and MCP servers; a closed session's servers are stopped, the process
   * stays (20 s idle, then stopped; always at worker exit). Default `false`: one process
   * per session.
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "gemini", models: ["scripted-1"], provider, options: { warm: true } }]);
   * ```
   */
  readonly warm?: boolean;
  /**
   * Gemini CLI and OpenCode only: the agent's own tools to offer the model, by the agent's
   * names (Gemini CLI: `read_file`, `glob`, `run_shell_command`, ...; OpenCode: `read`,
   * `glob`, `bash`, ...). Default `[]`: none; the model is offered only the session's MCP
   * tools, and a permission request for anything else is refused. The tools listed here run
   * without asking, and are never recorded as MCP calls.
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "gemini", models: ["scripted-1"], provider, options: { builtinTools: ["read_file"] } }]);
   * ```
   */
  readonly builtinTools?: readonly string[];
}

/**
 * Options of the `acp` harness: any agent that speaks the Agent Client Protocol on stdio.
 * Strings in `args` and `env` may use `{{model}}`, `{{provider.baseUrl}}`,
 * `{{provider.name}}`, `{{home}}` and `{{workspace}}`.
 *
 * @example
 * ```ts
 * kit.agents([{
 *   harness: "acp",
 *   models: ["scripted-1"],
 *   options: {
 *     command: "./node_modules/.bin/my-agent",
 *     args: ["--acp", "--model", "{{model}}"],
 *     env: { MY_AGENT_BASE_URL: "{{provider.baseUrl}}" },
 *     dialects: ["chat-completions"],
 *   },
 * }]);
 * ```
 */
export interface AcpAgentOptions extends CommonAcpOptions {
  /** The agent's executable: a path (relative to the project directory) or a name on PATH. */
  readonly command: string;
  /** Its arguments, e.g. `["--acp"]`. */
  readonly args?: readonly string[];
  /**
   * Variables added to the agent's isolated environment. Credentials do not go here (they
   * would sit in the test's source): map them with the selection's `credentialEnv`.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The provider dialects the agent can be pointed at (default: any). */
  readonly dialects?: readonly ProviderDialect[];
  /** How the agent is stopped: `"stdin"` (close it, the default) or `"sigterm"`. */
  readonly stop?: StopSignal;
  /**
   * Pick the selection's model through the session's `model` config option when the agent
   * offers one (default `true`).
   */
  readonly selectModel?: boolean;
}

/** {@link CommonAcpOptions} with every default applied. */
export interface ResolvedCommonOptions {
  readonly exposeDisallowedTools: boolean;
  readonly startupTimeoutMs: number;
  /** Always `false` for the `acp` harness. */
  readonly warm: boolean;
  /** Always `[]` for the `acp` harness. */
  readonly builtinTools: readonly string[];
}

/** {@link AcpAgentOptions} with every default applied. */
export interface ResolvedAgentOptions extends ResolvedCommonOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly dialects: readonly ProviderDialect[];
  readonly stop: StopSignal;
  readonly selectModel: boolean;
}

const COMMON = ["exposeDisallowedTools", "startupTimeoutMs"];
const PROFILE = [...COMMON, "warm", "builtinTools"];
const AGENT = [...COMMON, "command", "args", "env", "dialects", "stop", "selectModel"];

/**
 * Variables the harness sets to the session's isolated home and temp folder: an `env` that
 * replaced one would point the agent at the host's own files, or at folders nobody removes.
 */
const ISOLATION_VARIABLES = new Set([
  "HOME",
  "USERPROFILE",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "APPDATA",
  "LOCALAPPDATA",
]);

/** The placeholders `args` and `env` of the `acp` harness may use. */
export const PLACEHOLDERS = [
  "model",
  "provider.baseUrl",
  "provider.name",
  "home",
  "workspace",
] as const;

/** What the placeholders stand for in one launch. */
export type PlaceholderValues = Partial<Record<(typeof PLACEHOLDERS)[number], string>>;

function describe(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}

function checkPlaceholders(harness: string, option: string, text: string): void {
  for (const [, name] of text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(name ?? "")) {
      throw new InvalidAcpOptions(
        harness,
        option,
        `uses the unknown placeholder {{${name}}}; the placeholders are ${PLACEHOLDERS.map((entry) => `{{${entry}}}`).join(", ")}.`,
      );
    }
  }
}

/** Replaces the placeholders of `text`; one without a value (no provider) is an error. */
export function expandPlaceholders(text: string, values: PlaceholderValues, where: string): string {
  return text.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (_, name: string) => {
    const value = values[name as keyof PlaceholderValues];
    if (value === undefined) {
      throw new InvalidAcpOptions(
        "acp",
        where,
        `uses {{${name}}}, which has no value here${name.startsWith("provider.") ? " (the selection has no provider)" : ""}.`,
      );
    }
    return value;
  });
}

/** Reads `options` of `harness`, refusing a name not in `known`, in this package's error. */
function reader(
  harness: string,
  options: Readonly<Record<string, unknown>>,
  known: readonly string[],
): OptionReader {
  return optionReader(
    harness,
    options,
    known,
    (option, problem) => new InvalidAcpOptions(harness, option, problem),
  );
}

function common(
  harness: string,
  options: Readonly<Record<string, unknown>>,
  read: OptionReader,
): ResolvedCommonOptions {
  const { builtinTools } = options;
  if (
    builtinTools !== undefined &&
    (!Array.isArray(builtinTools) ||
      builtinTools.some((name) => typeof name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(name)))
  ) {
    throw read.error(
      "builtinTools",
      `must be an array of the agent's tool names (letters, digits, _ . -; no wildcards), got ${describe(builtinTools)}.`,
    );
  }
  return {
    exposeDisallowedTools: read.boolean("exposeDisallowedTools", false),
    startupTimeoutMs: read.milliseconds("startupTimeoutMs", 60_000),
    warm: read.boolean("warm", false),
    builtinTools: [...new Set((builtinTools as string[] | undefined) ?? [])],
  };
}

/**
 * Checks a selection's options for a named agent (`gemini`, `opencode`), which take only
 * the {@link CommonAcpOptions}, and applies the defaults.
 *
 * @throws {@link InvalidAcpOptions} naming the option at fault.
 */
export function resolveProfileOptions(
  harness: string,
  options: Readonly<Record<string, unknown>>,
): ResolvedCommonOptions {
  return common(harness, options, reader(harness, options, PROFILE));
}

/**
 * Checks a selection's options for the `acp` harness and applies the defaults: `command`
 * is required; `env` may not hold a credential (its name looks secret); placeholders must
 * be known.
 *
 * @throws {@link InvalidAcpOptions} naming the option at fault.
 */
export function resolveAgentOptions(
  options: Readonly<Record<string, unknown>>,
): ResolvedAgentOptions {
  const harness = "acp";
  if ("warm" in options) {
    throw new InvalidAcpOptions(
      harness,
      "warm",
      "is offered for the gemini and opencode harnesses only: the acp harness cannot know which of an agent's arguments and settings hold per process.",
    );
  }
  if ("builtinTools" in options) {
    throw new InvalidAcpOptions(
      harness,
      "builtinTools",
      "is offered for the gemini and opencode harnesses only: the acp harness cannot turn an agent's own tools on or off (it refuses every permission request that is not for an allowed MCP tool).",
    );
  }
  const read = reader(harness, options, AGENT);
  const { command, args, env, dialects } = options;
  if (typeof command !== "string" || command.trim() === "") {
    throw new InvalidAcpOptions(
      harness,
      "command",
      `must be the agent's executable (a path or a name on PATH), got ${describe(command)}. ` +
        `Example: options: { command: "./node_modules/.bin/my-agent", args: ["--acp"] }.`,
    );
  }
  if (args !== undefined && (!Array.isArray(args) || args.some((arg) => typeof arg !== "string"))) {
    throw new InvalidAcpOptions(
      harness,
      "args",
      `must be an array of strings, got ${describe(args)}.`,
    );
  }
  const argList = (args as string[] | undefined) ?? [];
  argList.forEach((arg, index) => checkPlaceholders(harness, `args[${index}]`, arg));
  if (env !== undefined && (typeof env !== "object" || env === null || Array.isArray(env))) {
    throw new InvalidAcpOptions(
      harness,
      "env",
      `must be an object of strings, got ${describe(env)}.`,
    );
  }
  const envMap = (env as Record<string, unknown> | undefined) ?? {};
  for (const [name, value] of Object.entries(envMap)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new InvalidAcpOptions(harness, `env.${name}`, "is not a valid variable name.");
    }
    if (typeof value !== "string") {
      throw new InvalidAcpOptions(
        harness,
        `env.${name}`,
        `must be a string, got ${describe(value)}.`,
      );
    }
    if (ISOLATION_VARIABLES.has(name.toUpperCase())) {
      throw new InvalidAcpOptions(
        harness,
        `env.${name}`,
        "is set by the harness: the agent runs in a fresh temporary home and temp folder that the kit removes after the session. Leave it out (files the agent needs go in the session's workspace).",
      );
    }
    if (isSecretName(name)) {
      throw new InvalidAcpOptions(
        harness,
        `env.${name}`,
        `looks like a credential; do not write it in the test. Map it from your environment with the selection's credentialEnv: { ${name}: "<PARENT_VARIABLE>" }.`,
      );
    }
    checkPlaceholders(harness, `env.${name}`, value);
  }
  if (
    dialects !== undefined &&
    (!Array.isArray(dialects) ||
      dialects.length === 0 ||
      dialects.some((dialect) => !PROVIDER_DIALECTS.includes(dialect as ProviderDialect)))
  ) {
    throw new InvalidAcpOptions(
      harness,
      "dialects",
      `must be a non-empty array of ${PROVIDER_DIALECTS.map((entry) => `"${entry}"`).join(", ")}, got ${describe(dialects)}.`,
    );
  }
  return {
    ...common(harness, options, read),
    command,
    args: argList,
    env: envMap as Record<string, string>,
    dialects: (dialects as ProviderDialect[] | undefined) ?? PROVIDER_DIALECTS,
    stop: read.oneOf("stop", ["stdin", "sigterm"], "stdin"),
    selectModel: read.boolean("selectModel", true),
  };
}
