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
}

/** {@link PiOptions} with every default applied. */
export interface ResolvedPiOptions {
  readonly builtinTools: readonly string[] | "default";
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly maxRetries: number;
  readonly node: string | undefined;
}

const OPTION_NAMES = ["builtinTools", "startupTimeoutMs", "toolTimeoutMs", "maxRetries", "node"];

function milliseconds(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1000) {
    throw new InvalidPiOptions(
      option,
      `must be a number of milliseconds of at least 1000, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function builtinTools(value: unknown): readonly string[] | "default" {
  if (value === undefined) return [];
  if (value === "default") return "default";
  if (
    !Array.isArray(value) ||
    value.some((name) => typeof name !== "string" || !PI_BUILTIN_TOOLS.includes(name))
  ) {
    throw new InvalidPiOptions(
      "builtinTools",
      `must be "default" or an array of Pi's tool names (${PI_BUILTIN_TOOLS.join(", ")}), got ${JSON.stringify(value)}.`,
    );
  }
  return [...new Set(value as string[])];
}

/**
 * Checks a selection's options for the Pi harness and applies the defaults.
 *
 * @throws {@link InvalidPiOptions} naming the option at fault.
 */
export function resolvePiOptions(options: Readonly<Record<string, unknown>>): ResolvedPiOptions {
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) {
      throw new InvalidPiOptions(key, `is unknown; the options are ${OPTION_NAMES.join(", ")}.`);
    }
  }
  const { maxRetries, node } = options;
  if (
    maxRetries !== undefined &&
    (typeof maxRetries !== "number" || !Number.isInteger(maxRetries) || maxRetries < 0)
  ) {
    throw new InvalidPiOptions(
      "maxRetries",
      `must be a whole number of at least 0, got ${JSON.stringify(maxRetries)}.`,
    );
  }
  if (node !== undefined && (typeof node !== "string" || node === "")) {
    throw new InvalidPiOptions(
      "node",
      `must be the path of a Node executable, got ${JSON.stringify(node)}.`,
    );
  }
  return {
    builtinTools: builtinTools(options.builtinTools),
    startupTimeoutMs: milliseconds(options.startupTimeoutMs, "startupTimeoutMs", 30_000),
    toolTimeoutMs: milliseconds(options.toolTimeoutMs, "toolTimeoutMs", 300_000),
    maxRetries: maxRetries ?? 0,
    node,
  };
}
