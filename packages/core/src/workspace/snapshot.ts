import { createHash } from "node:crypto";
import { lstat, readFile, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";

/** Text larger than this is hashed, not kept (no content, no diff). */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** What one snapshot keeps of text in memory at most, for the diffs at close. */
const TEXT_BUDGET_BYTES = 64 * 1024 * 1024;

/** One path as it was when the snapshot was taken. */
export interface SnapshotEntry {
  readonly type: "file" | "symlink";
  readonly size: number;
  readonly sha256: string;
  readonly binary: boolean;
  /** The text, when it is text and fits the limits. */
  readonly text: string | null;
  /** Why `text` is null for a text file. */
  readonly note: string | null;
}

/** Every file and link of a folder, by path relative to it (with `/`). */
export type Snapshot = ReadonlyMap<string, SnapshotEntry>;

/** A NUL byte, or bytes that are not UTF-8, make a file binary (as git decides). */
export function isBinary(bytes: Buffer): boolean {
  if (bytes.subarray(0, 8000).includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/**
 * Reads a folder: regular files by content hash, symbolic links by their target text
 * (never followed, so a link out of the workspace reads nothing outside it). The `.git`
 * entry at the root (a worktree's pointer to its repository, or a copied repository's
 * store) is not part of the workspace's content.
 */
export async function takeSnapshot(root: string): Promise<Map<string, SnapshotEntry>> {
  const entries = new Map<string, SnapshotEntry>();
  let budget = TEXT_BUDGET_BYTES;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      if (prefix === "" && name === ".git") continue;
      const full = join(dir, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      const stats = await lstat(full);
      if (stats.isDirectory()) {
        await walk(full, relative);
      } else if (stats.isSymbolicLink()) {
        const target = await readlink(full);
        entries.set(relative, {
          type: "symlink",
          size: Buffer.byteLength(target),
          sha256: createHash("sha256").update(`link:${target}`).digest("hex"),
          binary: false,
          text: target,
          note: null,
        });
      } else if (stats.isFile()) {
        const bytes = await readFile(full);
        const binary = isBinary(bytes);
        let text: string | null = null;
        let note: string | null = null;
        if (!binary) {
          if (bytes.length > MAX_TEXT_BYTES) note = "larger than 1 MiB: hashed, not diffed";
          else if (bytes.length > budget)
            note = "past the snapshot's text budget: hashed, not diffed";
          else {
            text = bytes.toString("utf8");
            budget -= bytes.length;
          }
        }
        entries.set(relative, {
          type: "file",
          size: bytes.length,
          sha256: createHash("sha256").update(bytes).digest("hex"),
          binary,
          text,
          note,
        });
      }
      // Sockets, FIFOs and devices are not content.
    }
  };
  await walk(root, "");
  return entries;
}
