import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import spawn from "cross-spawn";
import { GROUP_EXEC_PATH, groupExecError, groupExecUsable } from "./group-exec.js";
import { StreamTail } from "./stderr-tail.js";

/** How a process ended. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What to start. The environment is used as given: nothing is inherited implicitly. */
export interface ProcessLaunch {
  /** A label for messages (the server's name). */
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * Keep the process in this process's session, in a group of its own (through group-exec,
   * when it was built; else a session of its own as usual). On Linux a session is a
   * scheduling autogroup: a server in its own answers each request later on a busy machine.
   */
  readonly sameSession?: boolean;
}

export { INHERITED_ENV, childEnvironment } from "./environment.js";

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Whether any process of the group still runs. A zombie does not: it has exited and holds
 * nothing but its table entry until its parent reaps it, and an agent that exits leaves its
 * MCP children's zombies to an init that may reap them late (or never, in a container),
 * so waiting for them would only run out the grace period.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return runningMember(pgid);
}

/** Whether `/proc` lists a process of group `pgid` that is not a zombie (true without `/proc`). */
function runningMember(pgid: number): boolean {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return true; // no /proc (not Linux): existence is all we can tell
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // After the parenthesised name (which may contain ")"): state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * A child process the kit owns: started in its own process group (so its own children go
 * with it), its stderr kept (bounded) for error messages, and stopped with EOF on stdin,
 * then SIGTERM, then SIGKILL to the whole group after a grace period.
 */
export class ManagedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has started; rejects when it could not be spawned. */
  readonly spawned: Promise<void>;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  private readonly stderr = new StreamTail();
  private exit: ExitInfo | undefined;
  private stopping: Promise<void> | undefined;

  constructor(readonly launch: ProcessLaunch) {
    const grouped = launch.sameSession === true && groupExecUsable();
    this.child = (
      grouped
        ? // fd 3: group-exec's status pipe (closed on exec, "<errno>" when the exec failed).
          spawn(GROUP_EXEC_PATH, ["--", launch.command, ...launch.args], {
            cwd: launch.cwd,
            env: launch.env,
            stdio: ["pipe", "pipe", "pipe", "pipe"],
          })
        : spawn(launch.command, [...launch.args], {
            cwd: launch.cwd,
            env: launch.env,
            stdio: ["pipe", "pipe", "pipe"],
            detached: process.platform !== "win32",
            windowsHide: true,
          })
    ) as ChildProcessWithoutNullStreams;
    this.child.stderr.on("data", (chunk: Buffer) => this.stderr.append(chunk));
    // Write errors surface through the transport; here they must not crash the process.
    this.child.stdin.on("error", () => undefined);
    this.spawned = new Promise<void>((resolve, reject) => {
      this.child.once("error", reject);
      if (!grouped) {
        this.child.once("spawn", () => resolve());
        return;
      }
      // Started once the exec happened: the group exists and the program is the one asked for.
      const status = this.child.stdio[3] as NodeJS.ReadableStream;
      let said = "";
      status.setEncoding("utf8");
      status.on("data", (chunk: string) => (said += chunk));
      status.on("error", () => undefined);
      status.once("end", () =>
        said === "" ? resolve() : reject(groupExecError(launch.command, said)),
      );
    });
    this.spawned.catch(() => undefined);
    this.exited = new Promise<ExitInfo>((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        this.exit ??= { code, signal };
        resolve(this.exit);
      };
      // "close" waits for stdio to drain, so the stderr tail is complete.
      this.child.once("close", done);
      this.child.once("error", () => done(null, null));
    });
  }

  /** The process id, or undefined when spawning failed. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the process ended, or undefined while it runs. */
  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  /** The last lines of the process's stderr. */
  stderrTail(lines = 20): string {
    return this.stderr.tail(lines);
  }

  /**
   * Stops the process and everything in its group: EOF on stdin, a short wait, SIGTERM
   * (with SIGCONT, so a stopped process acts on it), then SIGKILL once `graceMs` has
   * passed. Idempotent; resolves once nothing is left.
   */
  stop(graceMs: number): Promise<void> {
    this.stopping ??= this.stopNow(graceMs);
    return this.stopping;
  }

  /**
   * SIGTERM (with SIGCONT) to this process alone, not its group: for an agent that stops
   * its own children when it is asked to end. Nothing once it has exited.
   */
  terminate(): void {
    if (this.exit === undefined) terminate((signal) => this.child.kill(signal));
  }

  private async stopNow(graceMs: number): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // Before group-exec's exec the process is not yet the leader of its group.
    await this.spawned.catch(() => undefined);
    const group = process.platform !== "win32";
    const alive = (): boolean => (group ? groupAlive(pid) : this.exit === undefined);
    if (this.exit === undefined) {
      this.child.stdin.end();
      await Promise.race([this.exited, delay(Math.min(100, graceMs))]);
    }
    if (alive()) {
      if (group) terminate((signal) => signalGroup(pid, signal));
      else this.terminate();
      const deadline = Date.now() + graceMs;
      while (alive() && Date.now() < deadline) await delay(10);
    }
    if (alive()) {
      if (group) signalGroup(pid, "SIGKILL");
      else this.child.kill("SIGKILL");
    }
    await this.exited;
    // Killed grandchildren may linger briefly as zombies until their reaper runs.
    const reapDeadline = Date.now() + 1000;
    while (group && groupAlive(pid) && Date.now() < reapDeadline) await delay(5);
  }
}

/**
 * SIGTERM, then SIGCONT: a stopped process (SIGSTOP, a hung agent) acts on SIGTERM only
 * once it runs again; otherwise it would sit out a whole grace before SIGKILL.
 */
function terminate(send: (signal: NodeJS.Signals) => void): void {
  send("SIGTERM");
  send("SIGCONT");
}

/**
 * Stops processes the kit did not spawn itself but knows of (a relay a harness started):
 * SIGTERM (with SIGCONT), then SIGKILL after `graceMs`. Returns the ids that were still running.
 */
export async function stopStrays(pids: readonly number[], graceMs: number): Promise<number[]> {
  const strays = pids.filter(isAlive);
  for (const pid of strays) terminate((signal) => signalPid(pid, signal));
  const deadline = Date.now() + graceMs;
  while (strays.some(isAlive) && Date.now() < deadline) await delay(10);
  for (const pid of strays.filter(isAlive)) signalPid(pid, "SIGKILL");
  const reaped = Date.now() + 1000;
  while (strays.some(isAlive) && Date.now() < reaped) await delay(5);
  return strays;
}

/**
 * When a process started, in clock ticks since boot (Linux `/proc`), so that a process id
 * reused by an unrelated process is never taken for the one seen before. Null where unknown.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** A process as it was seen: its id and its start time (which tells a reused id apart). */
export interface SeenProcess {
  readonly pid: number;
  readonly startTime: string | null | undefined;
}

/**
 * The one rule for ending a process by id: only if it is still the very process seen
 * (alive, same start time), never a process that reused its id.
 */
export function stillSame(entry: SeenProcess): boolean {
  return (
    entry.startTime != null && isAlive(entry.pid) && processStartTime(entry.pid) === entry.startTime
  );
}

/** Sends `signal` to each process that is still the one seen; returns the pids signalled. */
export function signalIfSame(processes: readonly SeenProcess[], signal: NodeJS.Signals): number[] {
  const same = processes.filter(stillSame).map((entry) => entry.pid);
  for (const pid of same) signalPid(pid, signal);
  return same;
}

/**
 * Stops known processes only if they are still the very ones seen (same start time):
 * SIGTERM, then SIGKILL after `graceMs`.
 */
export async function stopIfSame(
  processes: readonly SeenProcess[],
  graceMs: number,
): Promise<number[]> {
  return stopStrays(
    processes.filter(stillSame).map((entry) => entry.pid),
    graceMs,
  );
}

/**
 * True when a process exists and has not exited. A zombie (exited, not yet reaped by its
 * parent) counts as gone: it runs nothing and holds nothing but its process-table entry.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state follows the parenthesised command name, which may itself contain ")".
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc (not Linux): existence is all we can tell
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}
