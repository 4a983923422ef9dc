/**
 * Process checks made with `ps` and /proc, independently of the kit's own bookkeeping: what
 * runs, what a process started, and that closing a kit left nothing behind.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { MCPTestKit, OwnedProcess, WireCapture } from "@jest-m3/core";

/** True when a process with this id exists and is not a zombie, as `ps` sees it. */
export function isRunning(pid: number): boolean {
  const ps = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  const state = ps.stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/** A process's parent and state, as /proc sees it (undefined once it is gone). */
export function procStat(pid: number): { ppid: number; state: string; name: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = text.lastIndexOf(")");
    const [state, ppid] = text.slice(close + 2).split(" ");
    return { state: state!, ppid: Number(ppid), name: text.slice(text.indexOf("(") + 1, close) };
  } catch {
    return undefined;
  }
}

/** The running (not zombie) children of `parent`, as /proc sees them; only those named `name`. */
export function childrenOf(parent: number, name?: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const seen = procStat(pid);
      return (
        seen !== undefined &&
        seen.ppid === parent &&
        seen.state !== "Z" &&
        (name === undefined || seen.name === name)
      );
    });
}

/** The running children of `parent` whose command line contains `text` (e.g. an agent's package). */
export function childrenRunning(parent: number, text: string): number[] {
  return childrenOf(parent).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text);
    } catch {
      return false;
    }
  });
}

/**
 * The running (not zombie) members of process group `pgid`, as /proc sees them. A zombie
 * runs nothing: an agent that exits leaves its MCP children's zombies to an init that may
 * reap them late, and the kit does not wait for that.
 */
export function groupRunning(pgid: number): number[] {
  const running: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const [state, , pgrp] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") running.push(Number(entry));
  }
  return running;
}

/** Every descendant of `pid` (children, grandchildren...), from `ps`. */
export function descendants(pid: number): number[] {
  const ps = spawnSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  const children = new Map<number, number[]>();
  for (const line of ps.stdout.split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The kit's processes and every descendant of them (the agent, its MCP servers, the relays). */
export function processTree(kit: MCPTestKit): number[] {
  return kit.processes.flatMap((child) => [child.pid, ...descendants(child.pid)]);
}

/** Every process id the test knows of: the kit's children and the captures' relays and servers. */
export function knownPids(kit: MCPTestKit, captures: readonly WireCapture[]): number[] {
  return [
    ...new Set([
      ...kit.processes.map((child) => child.pid),
      ...captures.flatMap((capture) => capture.pids),
    ]),
  ];
}

/**
 * Closes the kit and asserts that none of `seen` (by default the kit's processes) nor of the
 * kit's processes still runs. Given the kit's processes (OwnedProcess entries, the default),
 * the process groups they led must be gone too; given process ids (an agent's relays and
 * servers, from {@link knownPids}), each process must be gone.
 */
export async function closeAndExpectNoProcessLeft(
  kit: MCPTestKit,
  seen: readonly OwnedProcess[] | readonly number[] = kit.processes,
): Promise<void> {
  const owned = seen.every((entry) => typeof entry !== "number");
  const pids = [
    ...new Set(
      [...seen, ...kit.processes].map((entry) => (typeof entry === "number" ? entry : entry.pid)),
    ),
  ];
  await kit.close();
  expect(kit.processes).toEqual([]);
  expect(pids.filter(isRunning)).toEqual([]);
  if (!owned) return;
  for (const pid of pids) {
    const groupAlive = groupRunning(pid).length > 0;
    expect({ pid, groupAlive }).toEqual({ pid, groupAlive: false });
  }
}
