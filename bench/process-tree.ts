/**
 * What the benchmarks read of a process tree on Linux: each process's parent and state from
 * /proc, a tree's peak (VmHWM) and current (VmRSS) memory, and a wait that fails when a
 * session's processes outlive it.
 */
import { readdirSync, readFileSync } from "node:fs";

/** A process's name, state and parent, or undefined once it is gone. */
export function stat(pid: number): { ppid: number; comm: string; state: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = text.lastIndexOf(")");
    const [state, ppid] = text.slice(close + 2).split(" ");
    return { comm: text.slice(text.indexOf("(") + 1, close), state: state!, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** `root` and every process below it, now, root first (one pass over /proc). */
export function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const parent = stat(Number(name))?.ppid;
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const found = [root];
  for (let index = 0; index < found.length; index++) {
    found.push(...(children.get(found[index]!) ?? []));
  }
  return found;
}

/** A memory figure of a process's /proc status (`VmHWM`, `VmRSS`), bytes; 0 once it is gone. */
function statusBytes(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    );
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A process's peak resident memory (VmHWM), bytes; 0 once it is gone. */
export function vmHwm(pid: number): number {
  return statusBytes(pid, "VmHWM");
}

/** The resident memory of one process now, bytes (0 when it is gone). */
export function rssOf(pid: number): number {
  return statusBytes(pid, "VmRSS");
}

/** The summed resident memory of `pid` and every process below it, bytes. */
export function treeRss(pid: number): number {
  return tree(pid).reduce((sum, one) => sum + rssOf(one), 0);
}

/** True while the process runs (a zombie counts as gone). */
export function alive(pid: number): boolean {
  const state = stat(pid)?.state;
  return state !== undefined && state !== "Z";
}

/** Waits until `pids` have all exited; after 3 s kills what is left and throws. */
export async function gone(pids: readonly number[], what: string): Promise<void> {
  const started = performance.now();
  while (pids.some(alive)) {
    if (performance.now() - started > 3000) {
      const left = pids.filter(alive);
      for (const pid of left) process.kill(pid, "SIGKILL"); // ours: this round's session
      throw new Error(`${what}: processes ${left.join(", ")} outlived the session by 3 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Peak memory of the agent `pid` and, summed, of everything below it. */
export function memory(pid: number): { agent: number; below: number; pids: number[] } {
  const pids = tree(pid);
  return {
    agent: vmHwm(pid),
    below: pids.slice(1).reduce((sum, one) => sum + vmHwm(one), 0),
    pids,
  };
}
