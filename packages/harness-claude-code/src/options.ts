import { optionReader, readStrings, type OptionReader } from "@jest-m3/core/adapter-kit";
import { InvalidClaudeCodeOptions } from "./errors.js";

/**
 * Options of the Claude Code harness, given as a selection's `options`.
 *
 * @example
 * ```ts
 * kit.agents([{ harness: "claude-code", models: ["scripted"], options: { builtinTools: ["Read"] } }]);
 * ```
 */
export interface ClaudeCodeOptions {
  /**
   * Claude Code's own tools to offer the model (`--tools`), e.g. `["Read", "Grep"]`, or
   * `"default"` for its default set. Default `[]`: none, only the MCP servers' tools. The
   * harness approves the built-in tools listed here when Claude asks.
   */
  readonly builtinTools?: readonly string[] | "default";
  /**
   * Offer the model every tool of every server, and enforce the allow-list only by denying
   * permission and at the wire. Default `false`: tools outside the allow-list are also hidden
   * from the model (deny rules). Use it to test how an agent copes with a denied call.
   */
  readonly exposeDisallowedTools?: boolean;
  /** How long Claude Code and every MCP server get to start, in ms (default 30 000). */
  readonly startupTimeoutMs?: number;
  /** How long Claude Code waits for one MCP tool call, in ms (default 300 000). */
  readonly toolTimeoutMs?: number;
  /**
   * How often Claude Code retries a failed model request (`CLAUDE_CODE_MAX_RETRIES`).
   * Default 0, so a scripted fault fails the turn once, as the test wrote it.
   */
  readonly maxRetries?: number;
  /**
   * Reuse one Claude Code process for the sessions of a Jest worker whose process would be
   * started with exactly the same executable, arguments (model, allow-list rules),
   * environment (provider and credential values included) and home files (a copied login).
   * A process serves one session at a time; when a session closes, its MCP servers are
   * removed (`mcp_set_servers` with none, which stops them), its deny rules cleared and its
   * conversation ended (`/clear`, then the `/clear` command itself rewound), so the next
   * session starts with no history, none of its servers or tools and its own permission
   * answers. A process that a session left mid-turn, or that did not reset cleanly, is
   * stopped instead. Idle processes stop after 20 s, when the test file ends, and always
   * when the worker exits.
   *
   * Default: warm wherever a warm process can serve the session, cold (one process per
   * session, owned by the session's kit, in its `kit.processes`) otherwise. A warm process
   * has one working directory, shared by the sessions it serves, so a session with
   * `builtinTools` or a `workspace` is cold when `warm` is left out. `true` insists: such a
   * session is refused with {@link InvalidClaudeCodeOptions} naming `warm`, before any
   * process starts. `false`: one process per session, always.
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "claude-code", models: ["scripted-model"], provider, options: { warm: false } }]);
   * ```
   */
  readonly warm?: boolean;
}

/** {@link ClaudeCodeOptions} with every default applied. */
export interface ResolvedClaudeCodeOptions {
  readonly builtinTools: readonly string[] | "default";
  readonly exposeDisallowedTools: boolean;
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly maxRetries: number;
  /**
   * Whether the session runs on a warm process: `warm` as given, else `true` unless
   * `builtinTools` are on. A session with a workspace still opens cold when
   * {@link ResolvedClaudeCodeOptions.warmByDefault} is set.
   */
  readonly warm: boolean;
  /** True when `warm` was left out, so a session a warm process cannot serve opens cold. */
  readonly warmByDefault: boolean;
}

const OPTION_NAMES = [
  "builtinTools",
  "exposeDisallowedTools",
  "startupTimeoutMs",
  "toolTimeoutMs",
  "maxRetries",
  "warm",
];

function builtinTools(
  read: OptionReader,
  options: Readonly<Record<string, unknown>>,
): readonly string[] | "default" {
  if (options.builtinTools === "default") return "default";
  const what = '"default" or an array of Claude Code tool names such as ["Read", "Grep"]';
  return [...(readStrings(read, options, "builtinTools", what, /^[A-Za-z][A-Za-z0-9_]*$/) ?? [])];
}

/**
 * Checks a selection's options for the Claude Code harness and applies the defaults.
 *
 * @throws {@link InvalidClaudeCodeOptions} naming the option at fault.
 */
export function resolveClaudeCodeOptions(
  options: Readonly<Record<string, unknown>>,
): ResolvedClaudeCodeOptions {
  const read = optionReader("Claude Code", options, OPTION_NAMES, (option, problem) => {
    return new InvalidClaudeCodeOptions(option, problem);
  });
  const exposeDisallowedTools = read.boolean("exposeDisallowedTools", false);
  const maxRetries = read.wholeNumber("maxRetries", 0);
  const tools = builtinTools(read, options);
  const ownTools = tools === "default" || tools.length > 0;
  const warmByDefault = options.warm === undefined;
  const warm = read.boolean("warm", !ownTools);
  if (warm && ownTools) {
    throw new InvalidClaudeCodeOptions(
      "warm",
      `cannot be combined with builtinTools (${JSON.stringify(tools)}): a warm Claude Code process has one working directory for every session it serves, so one session's files would be another's. Leave warm out (such a session is then cold), or builtinTools.`,
    );
  }
  return {
    builtinTools: tools,
    exposeDisallowedTools,
    startupTimeoutMs: read.milliseconds("startupTimeoutMs", 30_000),
    toolTimeoutMs: read.milliseconds("toolTimeoutMs", 300_000),
    maxRetries,
    warm,
    warmByDefault,
  };
}
