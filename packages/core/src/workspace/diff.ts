import type { FileChange } from "./result.js";
import type { Snapshot, SnapshotEntry } from "./snapshot.js";
import { unifiedDiff } from "./text-diff.js";

function textDiff(
  path: string,
  before: SnapshotEntry | null,
  after: SnapshotEntry | null,
  from?: string,
): { diff: string | null; note: string | null } {
  const sides = [before, after].filter((side): side is SnapshotEntry => side !== null);
  if (sides.some((side) => side.binary)) return { diff: null, note: "binary" };
  const unkept = sides.find((side) => side.text === null);
  if (unkept) return { diff: null, note: unkept.note };
  const diff = unifiedDiff(path, before?.text ?? null, after?.text ?? null, { from });
  if (diff === null && before?.text !== after?.text) {
    return { diff: null, note: "too many changed lines for a text diff" };
  }
  return { diff, note: null };
}

function changeOf(
  path: string,
  change: FileChange["change"],
  before: SnapshotEntry | null,
  after: SnapshotEntry | null,
  from: string | null = null,
): FileChange {
  const { diff, note } = textDiff(path, before, after, from ?? undefined);
  const side = after ?? before!;
  return {
    path,
    change,
    from,
    type: side.type,
    binary: (before?.binary ?? false) || (after?.binary ?? false),
    diff,
    content: after && !after.binary ? after.text : null,
    size: after ? after.size : null,
    sha256: after ? after.sha256 : null,
    note,
  };
}

/**
 * What changed between two snapshots of one workspace: added, modified and deleted paths,
 * and a deleted and an added path of the same content hash paired as a rename. Sorted by
 * path.
 *
 * @example
 * ```ts
 * const changes = diffSnapshots(before, await takeSnapshot(folder));
 * ```
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): FileChange[] {
  const changes: FileChange[] = [];
  const deleted = [...before.keys()].filter((path) => !after.has(path));
  const added = [...after.keys()].filter((path) => !before.has(path));
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (old && (old.sha256 !== entry.sha256 || old.type !== entry.type)) {
      changes.push(changeOf(path, "modified", old, entry));
    }
  }
  const unpaired = new Set(deleted);
  for (const path of added) {
    const entry = after.get(path)!;
    const from = deleted.find(
      (old) =>
        unpaired.has(old) &&
        before.get(old)!.sha256 === entry.sha256 &&
        before.get(old)!.type === entry.type,
    );
    if (from === undefined) {
      changes.push(changeOf(path, "added", null, entry));
    } else {
      unpaired.delete(from);
      const renamed = changeOf(path, "renamed", before.get(from)!, entry, from);
      changes.push({ ...renamed, diff: null, note: null });
    }
  }
  for (const path of unpaired) changes.push(changeOf(path, "deleted", before.get(path)!, null));
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
