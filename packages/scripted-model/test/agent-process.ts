/**
 * Starting the real agent binaries (node_modules/.bin) in a fresh temporary home, with an
 * environment built from scratch, and killing them (their whole process group) by pid.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "../../..");

/** The shipping MCP server script. */
export const SHIPPING_SERVER = join(REPO_ROOT, "examples/shipping/shipping-server.mjs");

/** An agent binary from the repository's node_modules/.bin. */
export function agentBin(name: "claude" | "gemini" | "opencode"): string {
  const bin = join(REPO_ROOT, "node_modules", ".bin", name);
  if (!existsSync(bin)) {
    throw new Error(
      `${bin} is missing: run \`npm ci\` at the repository root (it is pinned there).`,
    );
  }
  return bin;
}

/** A fresh temporary folder tree for one agent run. */
export class TempHome {
  readonly root = mkdtempSync(join(tmpdir(), "m3-agent-"));
  readonly home = this.dir("home");
  readonly workspace = this.dir("workspace");
  /** The shipping server's call log (one JSON line per tools/call it received). */
  readonly callLog = join(this.root, "calls.jsonl");

  dir(name: string): string {
    const path = join(this.root, name);
    mkdirSync(path, { recursive: true });
    return path;
  }

  /** The calls the shipping server logged. */
  calls(): { tool: string; arguments: Record<string, unknown> }[] {
    if (!existsSync(this.callLog)) return [];
    return readFileSync(this.callLog, "utf8")
      .split("\n")
      .filter((line) => line.trim().length > 0)
      .map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> });
  }

  /** The base environment: PATH, HOME, XDG folders and TMPDIR under this home. */
  baseEnv(): Record<string, string> {
    return {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.home,
      XDG_CONFIG_HOME: this.dir("xdg/config"),
      XDG_DATA_HOME: this.dir("xdg/data"),
      XDG_CACHE_HOME: this.dir("xdg/cache"),
      XDG_STATE_HOME: this.dir("xdg/state"),
      TMPDIR: this.dir("tmp"),
      LANG: "C.UTF-8",
    };
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A running agent process: its output so far, and a kill by pid. */
export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(
    command: string,
    args: string[],
    options: { env: Record<string, string>; cwd: string },
  ) {
    this.child = spawn(command, args, { ...options, detached: true, stdio: "pipe" });
    this.child.stdout.setEncoding("utf8").on("data", (d: string) => (this.stdout += d));
    this.child.stderr.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolvePromise) => {
      this.child.once("close", (code) => resolvePromise(code));
      this.child.once("error", () => resolvePromise(null));
    });
  }

  /** The JSON lines of stdout. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads events loosely
  events(): Record<string, any>[] {
    return this.stdout
      .split("\n")
      .filter((line) => line.trim().startsWith("{"))
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return {};
        }
      });
  }

  /** Resolves when `predicate` holds for the events, or throws after `timeoutMs`. */
  async waitFor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads events loosely
    predicate: (events: Record<string, any>[]) => boolean,
    timeoutMs: number,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events())) {
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(
          `The agent did not get there within ${timeoutMs} ms (exit ${this.child.exitCode}).\n` +
            `--- stdout ---\n${this.stdout.slice(-4000)}\n--- stderr ---\n${this.stderr.slice(-4000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits for the exit, killing the process group after `timeoutMs`. */
  async finish(timeoutMs: number): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">(
      (r) => (timer = setTimeout(() => r("timeout"), timeoutMs)),
    );
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (result === "timeout") {
      this.kill();
      throw new Error(
        `The agent did not exit within ${timeoutMs} ms.\n--- stdout ---\n${this.stdout.slice(-4000)}\n` +
          `--- stderr ---\n${this.stderr.slice(-4000)}`,
      );
    }
    return result;
  }

  /** Kills the process group by pid (safe when it is already gone). */
  kill(): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
