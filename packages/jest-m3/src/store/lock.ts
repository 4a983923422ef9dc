/**
 * A lock file beside the history, so that several Jest runs at once (or a run and
 * merge-reports) take turns: sql.js rewrites the whole file, and two writers without a lock
 * would each write back what they read, losing the other's run. The lock is a file created
 * exclusively, holding its owner's pid and start time; a lock whose owner has exited (a
 * killed run) is taken over.
 */
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { processStartTime } from "@jest-m3/core/lean";
import { M3Error } from "@jest-m3/core/lean";

interface Holder {
  readonly pid: number;
  readonly startTicks: string | null;
  readonly host: string;
  readonly at: string;
}

/** The history stayed locked by another run for longer than the wait allowed. */
export class HistoryLocked extends M3Error {
  override readonly code = "M3_STORE_LOCKED";
  override readonly retryable = true;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function readHolder(file: string): { text: string; holder: Holder | null } | null {
  try {
    const text = readFileSync(file, "utf8");
    try {
      return { text, holder: JSON.parse(text) as Holder };
    } catch {
      return { text, holder: null };
    }
  } catch {
    return null; // gone: released meanwhile
  }
}

/** True when the holder is a process of this machine that is no longer running. */
function isStale(holder: Holder | null, ageMs: number): boolean {
  // A lock file without a readable owner: its writer died between create and write.
  if (holder === null) return ageMs > 5_000;
  if (holder.host !== hostname()) return false;
  const ticks = processStartTime(holder.pid);
  return ticks === null || (holder.startTicks !== null && ticks !== holder.startTicks);
}

/** Takes a stale lock away: only one contender wins the rename, and only from that holder. */
function takeOver(file: string, seen: string): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else took it over or released it first
  }
  const taken = readHolder(aside);
  if (taken && taken.text !== seen) {
    // A new owner locked it between our look and our rename: give it back.
    try {
      linkSync(aside, file);
    } catch {
      // a third contender holds it now; the one we moved keeps working on its own
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

/**
 * Creates the lock with its owner already written: the holder goes to a file of this
 * process's own, which is then hard-linked to the lock's name (a link fails when the name
 * exists). A contender therefore never reads a lock without an owner, however long it waited
 * (an empty lock read during a busy machine's pause used to look stale and was taken over).
 */
function tryCreate(file: string): boolean {
  const me: Holder = {
    pid: process.pid,
    startTicks: processStartTime(process.pid),
    host: hostname(),
    at: new Date().toISOString(),
  };
  const own = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = openSync(own, "wx");
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    unlinkSync(own);
  }
}

/** When the lock file was last written, or `fallback` when it is gone. */
function modifiedAt(file: string, fallback: number): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return fallback;
  }
}

/**
 * Runs `work` holding the lock `file`, waiting up to `waitMs` for it.
 *
 * @throws HistoryLocked when another live process held it for the whole wait.
 */
export async function withLock<T>(
  file: string,
  work: () => Promise<T> | T,
  waitMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  const started = Date.now();
  let delay = 10;
  for (;;) {
    if (tryCreate(file)) {
      try {
        return await work();
      } finally {
        const still = readHolder(file);
        if (still?.holder?.pid === process.pid) unlinkSync(file);
      }
    }
    const current = readHolder(file);
    if (current) {
      const at = current.holder ? Date.parse(current.holder.at) : modifiedAt(file, started);
      if (isStale(current.holder, Date.now() - at)) {
        takeOver(file, current.text);
        continue;
      }
    }
    if (Date.now() >= deadline) {
      throw new HistoryLocked(
        `The run history is locked by ${current?.holder ? `process ${current.holder.pid} on ${current.holder.host} since ${current.holder.at}` : "another process"} ` +
          `(${file}). Wait for that run to end; if no run is writing, delete the lock file.`,
      );
    }
    await sleep(delay);
    delay = Math.min(200, delay * 2);
  }
}
