/**
 * The check that an agent's command line still has what an adapter passes: its `--help`,
 * run in a throw-away home, names every flag (and word) the adapter relies on. An upgrade
 * that renames a flag is then unavailable with the names, before any session starts.
 *
 * @example
 * ```ts
 * const cli = await helpMentions(executable, ["--mode", "--no-session"], { timeoutMs: 30_000 });
 * ```
 */
import type { Capability } from "../harness/contract.js";
import type { FoundExecutable } from "./executables.js";
import { runIsolated, type IsolatedRunOptions } from "./versions.js";

/**
 * Ready when `<executable> --help` (see {@link runIsolated}) mentions every one of `words`;
 * else unavailable with the missing ones, or with why it did not run.
 */
export async function helpMentions(
  executable: FoundExecutable,
  words: readonly string[],
  options: IsolatedRunOptions = {},
): Promise<Capability> {
  const run = await runIsolated(executable, ["--help"], options);
  if (!run.ok) return { status: "unavailable", reason: run.reason };
  const missing = words.filter((word) => !run.output.includes(word));
  if (missing.length === 0) return { status: "ready" };
  return {
    status: "unavailable",
    reason: `\`${executable.path} --help\` does not mention ${missing.join(", ")}, which the adapter relies on`,
  };
}
