import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { MCPTestKit, OwnedProcess } from "@jest-m3/core";

/**
 * True when a process with this id exists and is not a zombie, as `ps` sees it (checked
 * independently of the kit's own bookkeeping).
 */
export function isRunning(pid: number): boolean {
  const ps = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  const state = ps.stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/**
 * Closes the kit and asserts that none of the processes it had started still runs (nor
 * anything in their process groups).
 */
export async function closeAndExpectNoProcessLeft(
  kit: MCPTestKit,
  seen: readonly OwnedProcess[] = kit.processes,
): Promise<void> {
  const pids = [...new Set([...seen, ...kit.processes].map((child) => child.pid))];
  await kit.close();
  expect(kit.processes).toEqual([]);
  for (const pid of pids) {
    expect({ pid, running: isRunning(pid) }).toEqual({ pid, running: false });
    let groupAlive = true;
    try {
      process.kill(-pid, 0);
    } catch {
      groupAlive = false;
    }
    expect({ pid, groupAlive }).toEqual({ pid, groupAlive: false });
  }
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
