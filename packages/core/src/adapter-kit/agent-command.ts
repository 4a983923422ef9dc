/**
 * An agent a test names by command: its `command`, `args` and `env` options read and
 * checked together (the command a path or a name on PATH; `{{placeholders}}` in the
 * arguments and variables only the adapter's), the command found, and the placeholders
 * filled for one launch. Reported through an {@link OptionReader}'s error, so the adapter
 * keeps its own error class.
 *
 * @example
 * ```ts
 * const read = optionReader("my-agent", options, ["command", "args", "env"]);
 * const agent = readAgentCommand(read, options, ["model", "workspace"], 'options: { command: "./bin/my-agent", args: ["--serve"] }');
 * const executable = findAgentCommand(agent.command);
 * const { args, env } = fillAgentCommand(agent, { model: launch.model, workspace: launch.workspace }, (_name, option) => read.error(option, "has no value here."));
 * ```
 */
import { isAbsolute, resolve } from "node:path";
import {
  checkPlaceholders,
  fillPlaceholders,
  readAgentEnv,
  readStrings,
  shownValue,
} from "./command-options.js";
import { isRunnableFile, onPath, runnable, type ExecutableLookup } from "./executables.js";
import type { OptionReader } from "./harness-options.js";

/** An agent's command line as a selection's options give it, placeholders unfilled. */
export interface AgentCommand {
  /** The executable: a path (relative to the project's folder) or a name on PATH. */
  readonly command: string;
  readonly args: readonly string[];
  /** Variables added to the agent's isolated environment. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The options `command` (required, a non-empty string), `args` (strings) and `env` (see
 * {@link readAgentEnv}), every placeholder in them one of `placeholders`.
 *
 * @param example - How the options look, for the error of a missing command, e.g.
 * `options: { command: "./node_modules/.bin/my-agent", args: ["--serve"] }`.
 */
export function readAgentCommand(
  read: OptionReader,
  options: Readonly<Record<string, unknown>>,
  placeholders: readonly string[],
  example: string,
): AgentCommand {
  const { command } = options;
  if (typeof command !== "string" || command.trim() === "") {
    throw read.error(
      "command",
      `must be the agent's executable (a path or a name on PATH), got ${shownValue(command)}. ` +
        `Example: ${example}.`,
    );
  }
  const args = readStrings(read, options, "args") ?? [];
  args.forEach((arg, index) => checkPlaceholders(read, `args[${index}]`, arg, placeholders));
  const env = readAgentEnv(read, options, "env");
  for (const [name, value] of Object.entries(env)) {
    checkPlaceholders(read, `env.${name}`, value, placeholders);
  }
  return { command, args, env };
}

/**
 * The executable `command` names: a path (anything with a slash, resolved from the current
 * folder) that must be a runnable file, else a name looked up on `pathVariable`. The
 * reasons name the option as `option`.
 */
export function findAgentCommand(
  command: string,
  option = "options.command",
  pathVariable = process.env.PATH,
): ExecutableLookup {
  if (isAbsolute(command) || command.includes("/") || command.includes("\\")) {
    const path = resolve(command);
    return isRunnableFile(path)
      ? runnable(path, "options")
      : { found: false, reason: `${option} ${JSON.stringify(path)} is not an executable file.` };
  }
  const found = onPath(command, pathVariable);
  return found !== undefined
    ? runnable(found, "options")
    : { found: false, reason: `${option} "${command}" is not on PATH.` };
}

/**
 * `command`'s arguments and variables with the placeholders filled from `values`; one
 * without a value is `missing(name, option)`, thrown (`option` e.g. `args[0]`, `env.MY_URL`).
 */
export function fillAgentCommand(
  command: Pick<AgentCommand, "args" | "env">,
  values: Readonly<Record<string, string | undefined>>,
  missing: (name: string, option: string) => Error,
): { args: string[]; env: Record<string, string> } {
  const fill = (text: string, option: string): string =>
    fillPlaceholders(text, values, (name) => missing(name, option));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(command.env)) env[name] = fill(value, `env.${name}`);
  return { args: command.args.map((arg, index) => fill(arg, `args[${index}]`)), env };
}
