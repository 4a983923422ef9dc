import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FileChange, FileChangeKind, WorkspaceResult } from "./result.js";
import { isBinary, MAX_TEXT_BYTES } from "./snapshot.js";

/** How expected changed files compare with the observed ones (the tool-call trajectory modes). */
export type ChangedFilesMode = "strict" | "unordered" | "subset" | "superset";

/** One expected changed path, optionally with how it changed (and, for a rename, from where). */
export type ChangedFileStep =
  | string
  | {
      readonly path: string;
      readonly change?: FileChangeKind | readonly FileChangeKind[];
      readonly from?: string;
    };

/** The answer to {@link queryChangedFiles}. */
export interface ChangedFilesOutcome {
  readonly pass: boolean;
  readonly mode: ChangedFilesMode;
  /** Every changed path, sorted by path. */
  readonly observed: readonly FileChange[];
  /** Expected entries no change answered, by index. */
  readonly missing: readonly { readonly index: number; readonly step: ChangedFileStep }[];
  /** Changes no expected entry answered. */
  readonly unexpected: readonly FileChange[];
  /** For `strict`: the first position where the lists differ. */
  readonly firstDifference: number | null;
}

/** A malformed expectation: not a path or `{ path, change?, from? }`, or an unknown mode. */
export class ChangedFilesQueryError extends Error {
  override readonly name = "ChangedFilesQueryError";
}

function checkStep(step: ChangedFileStep): void {
  const ok =
    typeof step === "string" ||
    (typeof step === "object" && step !== null && typeof step.path === "string");
  if (!ok) {
    throw new ChangedFilesQueryError(
      `each expected file must be a path or { path, change?, from? }, got ${JSON.stringify(step)}.`,
    );
  }
}

/** Whether one change answers one expected entry. */
export function changeFits(step: ChangedFileStep, change: FileChange): boolean {
  if (typeof step === "string") return change.path === step;
  if (change.path !== step.path) return false;
  if (step.change !== undefined) {
    const kinds: readonly FileChangeKind[] =
      typeof step.change === "string" ? [step.change] : step.change;
    if (!kinds.includes(change.change)) return false;
  }
  return step.from === undefined || change.from === step.from;
}

/**
 * Compares a workspace's changed paths (sorted by path) with the expected ones:
 *
 * - `strict`: exactly these paths, in path order.
 * - `unordered`: exactly these paths, in any order.
 * - `subset`: at least these paths changed; others may have too.
 * - `superset`: no path changed but these; some may not have.
 *
 * @example
 * ```ts
 * queryChangedFiles(result.workspace!, ["src/app.ts", { path: "notes.md", change: "added" }], { mode: "unordered" }).pass;
 * ```
 *
 * @throws {@link ChangedFilesQueryError} for a malformed entry or mode.
 */
export function queryChangedFiles(
  workspace: WorkspaceResult,
  expected: readonly ChangedFileStep[],
  options: { readonly mode?: ChangedFilesMode } = {},
): ChangedFilesOutcome {
  const mode = options.mode ?? "strict";
  if (!["strict", "unordered", "subset", "superset"].includes(mode)) {
    throw new ChangedFilesQueryError(
      `mode must be "strict", "unordered", "subset" or "superset", got ${JSON.stringify(mode)}.`,
    );
  }
  expected.forEach(checkStep);
  const observed = workspace.changes;
  let firstDifference: number | null = null;
  if (mode === "strict") {
    for (let i = 0; i < Math.max(expected.length, observed.length); i++) {
      const step = expected[i];
      const change = observed[i];
      if (step === undefined || change === undefined || !changeFits(step, change)) {
        firstDifference = i;
        break;
      }
    }
  }
  // Paths are unique, so a first fit is the only fit worth taking.
  const used = new Set<number>();
  const missing: { index: number; step: ChangedFileStep }[] = [];
  expected.forEach((step, index) => {
    const at = observed.findIndex(
      (change, position) => !used.has(position) && changeFits(step, change),
    );
    if (at === -1) missing.push({ index, step });
    else used.add(at);
  });
  const unexpected = observed.filter((_, position) => !used.has(position));
  const pass =
    mode === "strict"
      ? firstDifference === null
      : mode === "unordered"
        ? missing.length === 0 && unexpected.length === 0
        : mode === "subset"
          ? missing.length === 0
          : unexpected.length === 0;
  return { pass, mode, observed, missing, unexpected, firstDifference };
}

/** A file's content after the session, as far as the result (or a kept folder) holds it. */
export type FileContent =
  | { readonly state: "text"; readonly content: string; readonly change: FileChange | null }
  | { readonly state: "deleted"; readonly change: FileChange }
  | { readonly state: "binary"; readonly change: FileChange | null }
  | { readonly state: "unrecorded"; readonly reason: string };

/**
 * The text of `path` after the session: from the diff when the session changed it, from
 * the named artifacts, or from the folder when it was kept. A path the session did not
 * change in a removed folder is `unrecorded`, with the way to record it.
 *
 * @example
 * ```ts
 * const file = fileContentOf(result.workspace!, "notes.md");
 * if (file.state === "text") console.log(file.content);
 * ```
 */
export function fileContentOf(workspace: WorkspaceResult, path: string): FileContent {
  const change = workspace.changes.find((candidate) => candidate.path === path) ?? null;
  if (change?.change === "deleted") return { state: "deleted", change };
  if (change?.binary) return { state: "binary", change };
  if (change?.content != null) return { state: "text", content: change.content, change };
  const artifact = workspace.artifacts.find((candidate) => candidate.path === path);
  if (artifact?.exists) {
    if (artifact.binary) return { state: "binary", change };
    if (artifact.content !== null) return { state: "text", content: artifact.content, change };
  }
  if (workspace.kept) {
    try {
      const bytes = readFileSync(join(workspace.path, path));
      if (isBinary(bytes)) return { state: "binary", change };
      if (bytes.length <= MAX_TEXT_BYTES) {
        return { state: "text", content: bytes.toString("utf8"), change };
      }
    } catch {
      return { state: "unrecorded", reason: `${path} does not exist in the kept workspace` };
    }
  }
  if (change) return { state: "unrecorded", reason: change.note ?? "its text was not kept" };
  return {
    state: "unrecorded",
    reason:
      `the session did not change ${path}, and the workspace folder was removed at close ` +
      `(name it in workspace.artifacts, or keep: true, to read a file the session did not change)`,
  };
}
