/** Which kind of workspace a session had. */
export type WorkspaceKind = "copy" | "gitWorktree" | "readOnly";

/** How a path changed between the workspace's start and the session's close. */
export type FileChangeKind = "added" | "modified" | "deleted" | "renamed";

/**
 * One changed path of a workspace. A rename is a deleted and an added path with the same
 * content hash; a symbolic link is compared by its target text and never followed.
 */
export interface FileChange {
  /** The path relative to the workspace, with `/` (for `deleted`: the path that was). */
  readonly path: string;
  readonly change: FileChangeKind;
  /** For `renamed`: the old path. */
  readonly from: string | null;
  readonly type: "file" | "symlink";
  /** True when either side is not UTF-8 text (a NUL byte or invalid UTF-8). */
  readonly binary: boolean;
  /** A unified diff of the text (`--- a/`, `+++ b/`), or null (binary, too large, identical). */
  readonly diff: string | null;
  /** The text after the session (added, modified, renamed), or null (binary, deleted, too large). */
  readonly content: string | null;
  /** Size in bytes after the session (null when deleted). */
  readonly size: number | null;
  /** SHA-256 of the content after the session (null when deleted). */
  readonly sha256: string | null;
  /** Why `diff` or `content` is null when the reason is not obvious (e.g. "larger than 1 MiB"). */
  readonly note: string | null;
}

/** A file the test named in `workspace.artifacts`, kept after the folder is removed. */
export interface WorkspaceArtifact {
  readonly path: string;
  readonly exists: boolean;
  readonly size: number | null;
  readonly sha256: string | null;
  readonly binary: boolean;
  /** Its text (null when missing, binary or larger than the text limit). */
  readonly content: string | null;
}

/**
 * What a session's workspace became: every changed path, the artifacts the test named, and
 * where the folder is (if it was kept).
 *
 * @example
 * ```ts
 * const changed = session.result.workspace?.changes.map((change) => `${change.change} ${change.path}`);
 * ```
 */
export interface WorkspaceResult {
  readonly kind: WorkspaceKind;
  /** The folder or repository the workspace was made from (absolute). */
  readonly source: string;
  /** For `gitWorktree`: the ref as given and the commit it resolved to. */
  readonly ref: string | null;
  readonly commit: string | null;
  /** The workspace folder (the agent's working directory); it exists only if `kept`. */
  readonly path: string;
  readonly kept: boolean;
  /** Changed paths, sorted by path. */
  readonly changes: readonly FileChange[];
  readonly artifacts: readonly WorkspaceArtifact[];
  /** What could not be observed or cleaned up (a snapshot or removal failure), or null. */
  readonly error: string | null;
}
