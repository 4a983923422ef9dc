import { optionReader } from "@jest-m3/core/adapter-kit";
import { InvalidPiOptions } from "./errors.js";

/** Pi's own tools (1.6.0), as `builtinTools` may name them. */
export const PI_BUILTIN_TOOLS: readonly string[] = [
  "read",
  "bash",
  "powershell",
  "edit",
  "write",
  "grep",
  "find",
  "ls",
];

/**
 * Options of the Pi harness, given as a selection's `options`.
 *
 * @example
 * ```ts
 * kit.agents([{ harness: "pi", models: ["scripted-model"], provider, options: { builtinTools: ["read"] } }]);
 * ```
 */
export interface PiOptions {
  /**
   * Pi's own tools to offer the model besides the MCP servers' tools, e.g. `["read", "grep"]`,
   * or `"default"` for Pi's default set (`read`, `bash`, `edit`, `write`). Default `[]`: none,
   * only the MCP servers' allowed tools. Pi has no approval step: what is offered can run.
   */
  readonly builtinTools?: readonly string[] | "default";
  /** How long Pi, its extension and every MCP server get to start, in ms (default 30 000). */
  readonly startupTimeoutMs?: number;
  /** How long one MCP tool call may take, in ms (default 300 000). */
  readonly toolTimeoutMs?: number;
  /**
   * How often Pi retries a failed model request on its own (its `retry` setting). Default 0,
   * so a scripted fault fails the turn once, as the test wrote it.
   */
  readonly maxRetries?: number;
  /**
   * The Node executable to run Pi on (Pi 1.6 needs Node ≥ 22.19). Default: the configuration's
   * `M3_PI_NODE`, else an installed `node-<platform>-<arch>` package, else `node` on PATH,
   * else the Node running the tests, whichever is new enough first.
   */
  readonly node?: string;
  /**
   * Keep the Pi process for the next session of this worker with the same selection,
   * servers' names and allow-list (default false). Between sessions Pi starts a new
   * conversation (`new_session`), its bridge closes the session's MCP servers, and the next
   * session's servers are bound anew. Not with `builtinTools`: a warm Pi runs in a folder of
   * its own, not in the session's workspace.
   */
  readonly warm?: boolean;
}

/** {@link PiOptions} with every default applied. */
export interface ResolvedPiOptions {
  readonly builtinTools: readonly string[] | "default";
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly maxRetries: number;
  readonly node: string | undefined;
  readonly warm: boolean;
}

const OPTION_NAMES = [
  "builtinTools",
  "startupTimeoutMs",
  "toolTimeoutMs",
  "maxRetries",
  "node",
  "warm",
];

/**
 * Checks a selection's options for the Pi harness and applies the defaults.
 *
 * @throws {@link InvalidPiOptions} naming the option at fault.
 */
export function resolvePiOptions(options: Readonly<Record<string, unknown>>): ResolvedPiOptions {
  const read = optionReader(
    "Pi",
    options,
    OPTION_NAMES,
    (option, problem) => new InvalidPiOptions(option, problem),
  );
  const { node, builtinTools: tools = [] } = options;
  if (node !== undefined && (typeof node !== "string" || node === "")) {
    throw read.error("node", `must be the path of a Node executable, got ${JSON.stringify(node)}.`);
  }
  if (
    tools !== "default" &&
    (!Array.isArray(tools) ||
      tools.some((name) => typeof name !== "string" || !PI_BUILTIN_TOOLS.includes(name)))
  ) {
    throw read.error(
      "builtinTools",
      `must be "default" or an array of Pi's tool names (${PI_BUILTIN_TOOLS.join(", ")}), got ${JSON.stringify(tools)}.`,
    );
  }
  const builtinTools = tools === "default" ? tools : [...new Set(tools as string[])];
  const warm = read.boolean("warm", false);
  if (warm && (builtinTools === "default" || builtinTools.length > 0)) {
    throw read.error(
      "warm",
      `cannot be used with builtinTools (${JSON.stringify(builtinTools)}): a warm Pi runs in a folder of its own, not in each session's workspace, so its own tools would not work on the session's files. Leave out builtinTools, or warm.`,
    );
  }
  return {
    builtinTools,
    startupTimeoutMs: read.milliseconds("startupTimeoutMs", 30_000),
    toolTimeoutMs: read.milliseconds("toolTimeoutMs", 300_000),
    maxRetries: read.wholeNumber("maxRetries", 0),
    node: node as string | undefined,
    warm,
  };
}
