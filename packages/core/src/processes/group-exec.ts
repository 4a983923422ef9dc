import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { join } from "node:path";

/**
 * `group-exec` (src/wire/native/group-exec.c, built at install time next to the native
 * relay): starts a program in a process group of its own without a session of its own.
 */
export const GROUP_EXEC_PATH = join(__dirname, "..", "wire", "native", "group-exec");
const GROUP_EXEC_SOURCE = join(__dirname, "..", "..", "src", "wire", "native", "group-exec.c");

let usable: boolean | undefined;

/**
 * Whether `group-exec` can start processes here: built, runnable on this machine and built
 * from this version of its source. Checked once per process.
 */
export function groupExecUsable(): boolean {
  if (usable !== undefined) return usable;
  usable = false;
  if (process.platform === "win32") return usable;
  try {
    accessSync(GROUP_EXEC_PATH, constants.X_OK);
    const expected = createHash("sha256").update(readFileSync(GROUP_EXEC_SOURCE)).digest("hex");
    const probe = spawnSync(GROUP_EXEC_PATH, ["--source-sha256"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
      env: {},
    });
    usable = probe.status === 0 && probe.stdout.trim() === expected;
  } catch {
    usable = false;
  }
  return usable;
}

const ERRNO_NAMES = new Map<number, string>(
  Object.entries(osConstants.errno).map(([name, value]) => [value, name]),
);

/**
 * The error a failed exec reported on group-exec's status pipe (`"<errno>\n"`), shaped as
 * Node's own spawn error (`spawn <command> ENOENT`, with `code`, `errno`, `path`).
 */
export function groupExecError(command: string, status: string): NodeJS.ErrnoException {
  const errno = Number.parseInt(status, 10);
  const code = ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
  const error: NodeJS.ErrnoException = new Error(`spawn ${command} ${code}`);
  error.code = code;
  error.errno = -errno;
  error.syscall = `spawn ${command}`;
  error.path = command;
  return error;
}
