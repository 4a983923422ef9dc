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
   * Run the session on a warm Pi: a `pi --mode rpc` process of this Jest worker that serves
   * one session after another (one at a time), shared only by sessions whose Pi would be
   * started with exactly the same command line (model, provider), environment (provider and
   * credential values included) and configuration files. Pi's bridge extension binds MCP
   * tools as it loads, so a warm Pi is started without servers, in a folder of its own, and
   * each session binds its own servers and allow-list through the bridge's command: the
   * servers are not part of what the process is shared by, and they start with the session
   * (its start waits for every one to connect, as a cold start does). When a session
   * closes, Pi starts a new conversation (`new_session`: the bridge closes the session's
   * servers and is reloaded with none), so the next session finds none of its servers,
   * tools or messages. A Pi left mid-turn, or that does not confirm the new conversation, is
   * stopped instead. Idle processes stop after 20 s, when the test file ends, and always
   * when the worker exits.
   *
   * Default: warm wherever a warm process can serve the session, cold (one Pi per session,
   * in a fresh home owned by the session's kit, in its `kit.processes`) otherwise. A warm Pi
   * works in its own folder, not in the session's workspace, so a session with
   * `builtinTools` or a `workspace` is cold when `warm` is left out. `true` insists: such a
   * session is refused with {@link InvalidPiOptions} naming `warm`, before any process
   * starts. `false`: one Pi per session, always.
   *
   * @example
   * ```ts
   * kit.agents([{ harness: "pi", models: ["scripted-model"], provider, options: { warm: false } }]);
   * ```
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
  /**
   * Whether the session runs on a warm Pi: `warm` as given, else `true` unless
   * `builtinTools` are on. A session with a workspace still opens cold when
   * {@link ResolvedPiOptions.warmByDefault} is set.
   */
  readonly warm: boolean;
  /** True when `warm` was left out, so a session a warm Pi cannot serve opens cold. */
  readonly warmByDefault: boolean;
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
  const ownTools = builtinTools === "default" || builtinTools.length > 0;
  const warm = read.boolean("warm", !ownTools);
  if (warm && ownTools) {
    throw read.error(
      "warm",
      `cannot be used with builtinTools (${JSON.stringify(builtinTools)}): a warm Pi runs in a folder of its own, not in each session's workspace, so its own tools would not work on the session's files. Leave warm out (such a session is then cold), or builtinTools.`,
    );
  }
  return {
    builtinTools,
    startupTimeoutMs: read.milliseconds("startupTimeoutMs", 30_000),
    toolTimeoutMs: read.milliseconds("toolTimeoutMs", 300_000),
    maxRetries: read.wholeNumber("maxRetries", 0),
    node: node as string | undefined,
    warm,
    warmByDefault: options.warm === undefined,
  };
}
