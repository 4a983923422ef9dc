import {
  optionReader,
  readAgentCommand,
  readDialects,
  readStrings,
  type OptionReader,
} from "@jest-m3/core/adapter-kit";
import type { ProviderDialect } from "@jest-m3/core/harness";
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
   * Reuse one agent process per worker for sessions started with exactly the same
   * executable, arguments, environment (credentials included) and home files (policy,
   * configuration). Each session is still its own ACP session with its own workspace and
   * MCP servers; a closed session's servers are stopped, the process stays (20 s idle,
   * then stopped; when its test file ends; always at worker exit).
   *
   * Default: `true` for Gemini CLI, OpenCode and Qwen Code (their fault matrices and
   * isolation tests run warm), except a session with `builtinTools`, which is cold unless
   * `warm: true` is given (the agent's own tools would act inside a process and home shared
   * with other sessions); `false` (one process per session) for Kilo Code and GitHub
   * Copilot CLI.
   * `warm: false` is always one process per session.
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "gemini", models: ["scripted-1"], provider, options: { warm: false } }]);
   * ```
   */
  readonly warm?: boolean;
  /**
   * Gemini CLI, OpenCode, Kilo Code, Qwen Code and GitHub Copilot CLI (every profile; not
   * the plain `acp` harness): the agent's own tools to offer the model, by the agent's names
   * (Gemini CLI and Qwen Code: `read_file`, `glob`, `run_shell_command`, ...; OpenCode and
   * Kilo Code: `read`, `glob`, `bash`, ...; GitHub Copilot CLI: `bash`, `create`, `edit`,
   * ...). Default `[]`: none; the model is offered only the session's MCP
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

/**
 * {@link CommonAcpOptions} with every default applied (for the `acp` harness `warm` is
 * always `false` and `builtinTools` always `[]`).
 */
export type ResolvedCommonOptions = Required<CommonAcpOptions>;

/** {@link AcpAgentOptions} with every default applied. */
export type ResolvedAgentOptions = Required<AcpAgentOptions>;

const COMMON = ["exposeDisallowedTools", "startupTimeoutMs"];
const PROFILE = [...COMMON, "warm", "builtinTools"];
const AGENT = [...COMMON, "command", "args", "env", "dialects", "stop", "selectModel"];

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

/** The error of a placeholder that has no value in a launch (no provider). */
export function missingPlaceholder(name: string, where: string): InvalidAcpOptions {
  const why = name.startsWith("provider.") ? " (the selection has no provider)" : "";
  return new InvalidAcpOptions("acp", where, `uses {{${name}}}, which has no value here${why}.`);
}

/** Reads `options` of `harness`, refusing a name not in `known`, in this package's error. */
function reader(harness: string, options: Readonly<Record<string, unknown>>, known: string[]) {
  const error = (option: string, problem: string) =>
    new InvalidAcpOptions(harness, option, problem);
  return optionReader(harness, options, known, error);
}

/** What a named agent's profile defaults to, for {@link resolveProfileOptions}. */
export interface ProfileDefaults {
  /**
   * Whether its sessions are warm when the selection does not say (default `false`). A
   * session with `builtinTools` is cold unless `warm: true` is given either way.
   */
  readonly warm?: boolean;
}

function common(
  options: Readonly<Record<string, unknown>>,
  read: OptionReader,
  defaults: ProfileDefaults = {},
): ResolvedCommonOptions {
  const builtinTools = readStrings(
    read,
    options,
    "builtinTools",
    "an array of the agent's tool names (letters, digits, _ . -; no wildcards)",
    /^[A-Za-z0-9_.-]+$/,
  );
  return {
    exposeDisallowedTools: read.boolean("exposeDisallowedTools", false),
    startupTimeoutMs: read.milliseconds("startupTimeoutMs", 60_000),
    // The agent's own tools would act in a process (and home) other sessions share: a
    // session that turns them on is warm only when it asks to be.
    warm: read.boolean("warm", (defaults.warm ?? false) && (builtinTools ?? []).length === 0),
    builtinTools: [...new Set(builtinTools ?? [])],
  };
}

/**
 * Checks a selection's options for a named agent (`gemini`, `opencode`, ...), which take
 * only the {@link CommonAcpOptions}, and applies the defaults, the profile's own
 * (`defaults`: `{ warm: true }` for an agent whose fault matrix runs warm) among them.
 *
 * @example
 * ```ts
 * resolveOptions: (options) => resolveProfileOptions("gemini", options, { warm: true }),
 * ```
 *
 * @throws {@link InvalidAcpOptions} naming the option at fault.
 */
export function resolveProfileOptions(
  harness: string,
  options: Readonly<Record<string, unknown>>,
  defaults: ProfileDefaults = {},
): ResolvedCommonOptions {
  return common(options, reader(harness, options, PROFILE), defaults);
}

/** Options only the named profiles take, and why the `acp` harness cannot. */
const PROFILE_ONLY: Readonly<Record<string, string>> = {
  warm: "cannot know which of an agent's arguments and settings hold per process",
  builtinTools:
    "cannot turn an agent's own tools on or off (it refuses every permission request that is not for an allowed MCP tool)",
};

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
  for (const [name, why] of Object.entries(PROFILE_ONLY)) {
    if (name in options) {
      throw new InvalidAcpOptions(
        "acp",
        name,
        `is offered for the gemini and opencode harnesses only: the acp harness ${why}.`,
      );
    }
  }
  const read = reader("acp", options, AGENT);
  const example = 'options: { command: "./node_modules/.bin/my-agent", args: ["--acp"] }';
  const { command, args, env } = readAgentCommand(read, options, PLACEHOLDERS, example);
  return {
    ...common(options, read),
    command,
    args,
    env,
    dialects: readDialects(read, options, "dialects"),
    stop: read.oneOf("stop", ["stdin", "sigterm"], "stdin"),
    selectModel: read.boolean("selectModel", true),
  };
}
