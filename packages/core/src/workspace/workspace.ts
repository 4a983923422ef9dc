import { execFile } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { M3Error } from "../errors.js";
import { promisify } from "node:util";
import { diffSnapshots } from "./diff.js";
import { collectArtifacts } from "./artifacts.js";
import type { FileChange, WorkspaceResult } from "./result.js";
import { takeSnapshot, type Snapshot } from "./snapshot.js";
import type { WorkspaceSpec } from "./spec.js";

const run = promisify(execFile);

async function gitAsync(args: readonly string[], cwd: string): Promise<void> {
  await run("git", [...args], { cwd, timeout: 60_000, maxBuffer: 4 * 1024 * 1024 });
}

/** A workspace could not be made (a copy or a worktree failed); the session does not start. */
export class WorkspaceError extends M3Error {
  override readonly code = "M3_WORKSPACE";
}

/**
 * One session's workspace on disk, from its making to its diff. Made by
 * {@link Workspace.create} before the servers and the agent start; {@link Workspace.finish}
 * runs after both stopped, so every write is in the diff.
 */
export class Workspace {
  private finished: Promise<WorkspaceResult> | undefined;

  private constructor(
    readonly spec: WorkspaceSpec,
    /** The agent's working directory. */
    readonly path: string,
    private readonly before: Snapshot,
  ) {}

  /**
   * Makes the workspace in a fresh folder and snapshots it. The folder comes from `tempDir`
   * (the kit's, removed with the kit) unless the workspace is kept, which must outlive the kit.
   *
   * @example
   * ```ts
   * const workspace = await Workspace.create(resolveWorkspace({ copy: "fixtures/app" }, cwd), (prefix) => kit.tempDir(prefix));
   * ```
   *
   * @throws {@link WorkspaceError} when the copy or the worktree cannot be made.
   */
  static async create(
    spec: WorkspaceSpec,
    tempDir: (prefix: string) => Promise<string>,
  ): Promise<Workspace> {
    const prefix = "m3-workspace-";
    const parent = spec.keep ? await mkdtemp(join(tmpdir(), prefix)) : await tempDir(prefix);
    const path = join(parent, basename(spec.source) || "workspace");
    try {
      await Workspace.make(spec, path);
      return new Workspace(spec, path, await takeSnapshot(path));
    } catch (error) {
      await rm(parent, { recursive: true, force: true }).catch(() => undefined);
      throw new WorkspaceError(
        `The session's workspace (${spec.kind} of ${spec.source}) could not be made: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  private static async make(spec: WorkspaceSpec, path: string): Promise<void> {
    if (spec.kind === "gitWorktree") {
      // A run killed before it removed its worktree left an entry whose folder the sweep
      // deleted; pruning forgets it, so the repository does not collect them.
      await gitAsync(["worktree", "prune"], spec.source);
      await gitAsync(["worktree", "add", "--detach", path, spec.commit!], spec.source);
    } else {
      await cp(spec.source, path, {
        recursive: true,
        verbatimSymlinks: true,
        errorOnExist: true,
        force: false,
      });
    }
  }

  /** Diffs the folder against its start, keeps the named artifacts, removes it unless kept. Once. */
  finish(): Promise<WorkspaceResult> {
    this.finished ??= this.finishOnce();
    return this.finished;
  }

  private async finishOnce(): Promise<WorkspaceResult> {
    const problems: string[] = [];
    let changes: FileChange[] = [];
    try {
      changes = diffSnapshots(this.before, await takeSnapshot(this.path));
    } catch (error) {
      problems.push(`the workspace could not be read at close: ${(error as Error).message}`);
    }
    const kept = await collectArtifacts(this.path, this.spec.artifacts);
    const artifacts = kept.artifacts;
    problems.push(...kept.problems);
    if (!this.spec.keep)
      await this.remove().catch((error: unknown) => problems.push(String(error)));
    return {
      kind: this.spec.kind,
      source: this.spec.source,
      ref: this.spec.ref,
      commit: this.spec.commit,
      path: this.path,
      kept: this.spec.keep,
      changes,
      artifacts,
      error: problems.length > 0 ? problems.join("\n") : null,
    };
  }

  private async remove(): Promise<void> {
    if (this.spec.kind === "gitWorktree") {
      const removed = await gitAsync(["worktree", "remove", "--force", this.path], this.spec.source)
        .then(() => true)
        .catch(() => false);
      if (!removed) {
        await rm(this.path, { recursive: true, force: true });
        await gitAsync(["worktree", "prune"], this.spec.source);
      }
      return;
    }
    await rm(this.path, { recursive: true, force: true });
  }
}

/** The paths a read-only workspace's session changed, worded for the session's error. */
export function readOnlyViolation(changes: readonly FileChange[]): string {
  const listed = changes
    .map((change) =>
      change.change === "renamed"
        ? `${change.from} -> ${change.path} (renamed)`
        : `${change.path} (${change.change})`,
    )
    .join(", ");
  return `The read-only workspace was written to: ${listed}.`;
}
