/**
 * The agent's child process as an adapter sees it: how it ended (in the one wording),
 * listeners for its exit, its stderr tail without terminal colors (optionally only what it
 * wrote since a mark, for a warm process serving one session after another), and a close
 * that gives it a grace period after its stdin ends.
 *
 * @example
 * ```ts
 * const agent = new AgentProcess(launch.spawn({ label: "my-agent", command, args, env, cwd }));
 * agent.onExit((exit) => console.log(`gone: ${exit}`));
 * await agent.close(1500);
 * ```
 */
import { describeExit } from "../errors.js";
import type { ExitInfo, ManagedProcess } from "../processes/managed-process.js";

// Agents color their logs even into a pipe.
// eslint-disable-next-line no-control-regex -- the pattern is exactly the ANSI escape
const ANSI_COLOR = /\u001b\[[0-9;]*m/g;

/** How much stderr written since {@link AgentProcess.markStderr} is kept. */
const MARKED_LIMIT = 16_384;

/** The one description of a process's end: `code 1`, `signal SIGKILL`, or why it never ran. */
export function describeAgentExit(exit: ExitInfo, spawnError: Error | undefined): string {
  if (spawnError) return `could not be started: ${spawnError.message}`;
  return describeExit(exit);
}

/** A {@link ManagedProcess} with what every adapter asks of its agent process. */
export class AgentProcess {
  private spawnError: Error | undefined;
  private exit: string | undefined;
  private readonly exitListeners = new Set<(exit: string) => void>();
  private closing: Promise<void> | undefined;
  /** Set by {@link markStderr}: stderr written since. */
  private since: string | undefined;

  /** @param process - The agent, already spawned (by `launch.spawn` or a warm pool). */
  constructor(readonly process: ManagedProcess) {
    process.spawned.catch((error: unknown) => {
      this.spawnError = error instanceof Error ? error : new Error(String(error));
    });
    void process.exited.then((info) => {
      this.exit = describeAgentExit(info, this.spawnError);
      for (const listener of [...this.exitListeners]) listener(this.exit);
      this.exitListeners.clear();
    });
  }

  /** The process id, or undefined when it could not be spawned. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** How the process ended (`code 0`, `signal SIGKILL`, ...), or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.exit;
  }

  /**
   * Calls `listener` once the process has exited (at once when it already has), with how
   * it ended. Returns the function that removes it.
   */
  onExit(listener: (exit: string) => void): () => void {
    if (this.exit !== undefined) {
      listener(this.exit);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** The last `lines` lines of stderr without colors; after {@link markStderr}, only since. */
  stderrTail(lines = 20): string {
    const text =
      this.since === undefined
        ? this.process.stderrTail(lines)
        : this.since.split("\n").filter(Boolean).slice(-lines).join("\n");
    return text.replace(ANSI_COLOR, "");
  }

  /**
   * From now on, {@link stderrTail} holds only what the process writes after this call: a
   * warm process's next session never sees what it wrote for an earlier one.
   */
  markStderr(): void {
    if (this.since === undefined) {
      this.process.child.stderr.on("data", (chunk: Buffer | string) => {
        this.since = (this.since + String(chunk)).slice(-MARKED_LIMIT);
      });
    }
    this.since = "";
  }

  /**
   * Ends the process: closes its stdin (an agent exits and reaps its MCP servers), waits up
   * to `graceMs`, then stops the process group (SIGTERM, then SIGKILL). Idempotent.
   */
  close(graceMs = 2000): Promise<void> {
    this.closing ??= (async () => {
      if (this.exit === undefined) {
        this.process.child.stdin.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          this.process.exited,
          new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      await this.process.stop(graceMs);
    })();
    return this.closing;
  }
}
