import { optionReader } from "@jest-m3/core/adapter-kit";
import { InvalidCodexOptions } from "./errors.js";
import type { SandboxMode } from "./protocol.js";

/**
 * Codex's own tools a selection may turn on (`options: { builtinTools }`), by the names the
 * model sees: `shell` (Codex's command tool, `exec_command` and `write_stdin` in 0.171) and
 * `apply_patch` (its file-editing tool). Both are Codex's `shell_tool` feature, which
 * the harness otherwise turns off (`--disable shell_tool`).
 */
export const CODEX_BUILTIN_TOOLS: readonly string[] = ["shell", "apply_patch"];

/**
 * Options of the Codex harness, given as a selection's `options`.
 *
 * @example
 * ```ts
 * kit.agents([{ harness: "codex", models: ["scripted"], provider, options: { sandbox: "workspace-write" } }]);
 * ```
 */
export interface CodexOptions {
  /**
   * Codex's own tools to turn on: `["apply_patch"]` (its file-editing tool), `["shell"]`
   * (its command tool), or both; they are one Codex feature, so either turns on both.
   * Default `[]`: none, only the MCP servers' tools. Give a `workspace` and, to let the
   * tools write there, `sandbox: "workspace-write"`: the tools run in the session's
   * workspace under Codex's sandbox, their edits are in `result.workspace`, and the
   * allow-list still holds for MCP tools (a built-in tool is not an MCP call).
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "codex", models: ["scripted"], provider, options: { builtinTools: ["apply_patch"], sandbox: "workspace-write" } }]);
   * ```
   */
  readonly builtinTools?: readonly string[];
  /**
   * The sandbox of the agent's own commands (MCP servers run outside it). Default
   * `"read-only"`: the workspace is a fresh empty directory and the shell tool is off.
   */
  readonly sandbox?: Extract<SandboxMode, "read-only" | "workspace-write">;
  /**
   * Offer the model every tool of every server, and enforce the allow-list only by declining
   * approvals and at the wire. Default `false`: tools outside the allow-list are also hidden
   * from Codex (`enabled_tools`). Use it to test how an agent copes with a denied call.
   */
  readonly exposeDisallowedTools?: boolean;
  /** How long the app-server and every MCP server get to start, in ms (default 30 000). */
  readonly startupTimeoutMs?: number;
  /** How long Codex waits for one MCP tool call, in ms (default 300 000). */
  readonly toolTimeoutMs?: number;
  /**
   * Reuse one `codex app-server` per worker process for every session with the same
   * executable, command line, environment (credentials included) and login, each session on
   * its own ephemeral thread with its own MCP servers, provider, workspace and approvals.
   * Saves the app-server's start (spawn and initialize) per session. An idle app-server
   * stops after 20 s, when the test file ends, and always with the worker; one that stops
   * answering is stopped instead of serving the next session. Default `true`; `false`
   * starts an app-server per session, owned by the session's kit (its `kit.processes`).
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "codex", models: ["scripted"], provider, options: { warm: false } }]);
   * ```
   */
  readonly warm?: boolean;
}

/** {@link CodexOptions} with every default applied. */
export interface ResolvedCodexOptions {
  readonly builtinTools: readonly string[];
  readonly sandbox: "read-only" | "workspace-write";
  readonly exposeDisallowedTools: boolean;
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly warm: boolean;
}

const OPTION_NAMES = [
  "builtinTools",
  "sandbox",
  "exposeDisallowedTools",
  "startupTimeoutMs",
  "toolTimeoutMs",
  "warm",
];

function builtinTools(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.some((name) => typeof name !== "string" || !CODEX_BUILTIN_TOOLS.includes(name))
  ) {
    throw new InvalidCodexOptions(
      "builtinTools",
      `must be an array of Codex's own tools, ${CODEX_BUILTIN_TOOLS.map((name) => JSON.stringify(name)).join(" or ")}, got ${JSON.stringify(value)}. MCP tools are chosen by the session's tools.`,
    );
  }
  return [...new Set(value as string[])];
}

/**
 * Checks a selection's options for the Codex harness and applies the defaults.
 *
 * @throws {@link InvalidCodexOptions} naming the option at fault.
 */
export function resolveCodexOptions(
  options: Readonly<Record<string, unknown>>,
): ResolvedCodexOptions {
  const read = optionReader("Codex", options, OPTION_NAMES, (option, problem) => {
    return new InvalidCodexOptions(option, problem);
  });
  const sandbox = read.oneOf("sandbox", ["read-only", "workspace-write"], "read-only");
  const exposeDisallowedTools = read.boolean("exposeDisallowedTools", false);
  return {
    builtinTools: builtinTools(options.builtinTools),
    warm: read.boolean("warm", true),
    sandbox,
    exposeDisallowedTools,
    startupTimeoutMs: read.milliseconds("startupTimeoutMs", 30_000),
    toolTimeoutMs: read.milliseconds("toolTimeoutMs", 300_000),
  };
}
