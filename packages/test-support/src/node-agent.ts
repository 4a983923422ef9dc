/**
 * A real agent process for the adapter kit's unit tests: this Node running a script, with
 * only PATH inherited, as the kit's parts see an agent (a `ManagedProcess`).
 */
import { ManagedProcess } from "@jest-m3/core/adapter-kit";

/**
 * Starts `node -e script` as the agent labelled `label`.
 *
 * @example
 * ```ts
 * const agent = new AgentProcess(nodeAgent("my agent", `process.stdin.resume();`));
 * ```
 */
export function nodeAgent(label: string, script: string): ManagedProcess {
  return new ManagedProcess({
    label,
    command: process.execPath,
    args: ["-e", script],
    env: { PATH: process.env.PATH ?? "" },
  });
}
