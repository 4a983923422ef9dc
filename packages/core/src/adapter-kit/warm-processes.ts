/**
 * What every adapter's warm pool (`options: { warm: true }`) needs from the system: a key
 * that tells two agent starts apart, keeping an idle agent from holding the worker open,
 * killing an agent's whole process group, and stopping the MCP servers one session started
 * in a shared agent.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { isAlive } from "../processes/managed-process.js";

/** A server as the launch gives it (`launch.servers`): only stdio ones are processes. */
export interface SessionServer {
  readonly kind: string;
  readonly command?: string;
  readonly args?: readonly string[];
}

/** What an agent process is started with, for {@link warmStartKey}. */
export interface WarmStartSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The fresh folder this start planned into (written as `<root>` in the key). */
  readonly root: string;
  /** Anything else the process depends on (the harness's name, how it is stopped). */
  readonly extra?: readonly unknown[];
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every file under `root`: its path relative to `root` and its text, sorted by path. */
export async function filesUnder(root: string): Promise<[string, string][]> {
  const found: [string, string][] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) found.push([relative(root, path), await readFile(path, "utf8")]);
    }
  };
  await walk(root);
  return found.sort(([a], [b]) => byName(a, b));
}

/**
 * The key under which a warm pool keeps an agent process: the executable, arguments and
 * environment with the start's folder written as `<root>` (each start plans into a fresh
 * one), what `extra` names, and the name and content of every file under the folder. Two
 * sessions may share a process only when all of it is equal. The key holds credential
 * values: keep it in memory, never write it anywhere.
 */
export async function warmStartKey(start: WarmStartSpec): Promise<string> {
  const neutral = (text: string): string => text.split(start.root).join("<root>");
  const env = Object.entries(start.env)
    .map(([name, value]) => [name, neutral(value)] as const)
    .sort(([a], [b]) => byName(a, b));
  return JSON.stringify([
    start.command,
    start.args.map(neutral),
    env,
    start.extra ?? [],
    await filesUnder(start.root),
  ]);
}

/**
 * Lets an idle warm agent not keep the worker's event loop alive (`ref: false`), or holds
 * it again while a session uses it: the process and its three pipes.
 */
export function holdProcess(child: ChildProcess, ref: boolean): void {
  type Handle = { ref?: () => void; unref?: () => void };
  const handles = [child, child.stdin, child.stdout, child.stderr] as unknown as Handle[];
  for (const handle of handles) (ref ? handle?.ref : handle?.unref)?.call(handle);
}

/** Kills the process group led by `pid` at once (SIGKILL); nothing if it is gone. */
export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === "win32" ? pid : -pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return undefined;
  }
}

/**
 * Stops the MCP server processes one session started in a shared agent (agents keep them
 * while they run, even after the session is left): the agent's children whose command line
 * is exactly one of `servers`' (each carries its session's own capture channel, so no other
 * session's server matches). SIGTERM, then SIGKILL after `graceMs`; resolves once they are
 * gone. Linux only; elsewhere the agent keeps them until it stops.
 */
export async function stopSessionServers(
  agentPid: number | undefined,
  servers: readonly SessionServer[],
  graceMs: number,
): Promise<void> {
  if (agentPid === undefined || process.platform !== "linux") return;
  const wanted = servers
    .filter((server) => server.kind === "stdio")
    .map((server) => JSON.stringify([server.command, ...(server.args ?? [])]));
  if (wanted.length === 0) return;
  const mine = childrenOf(agentPid).filter((pid) => {
    const line = commandLine(pid);
    return line !== undefined && wanted.includes(JSON.stringify(line));
  });
  for (const pid of mine) signal(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (mine.some(isAlive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const pid of mine.filter(isAlive)) signal(pid, "SIGKILL");
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone since it was listed.
  }
}
