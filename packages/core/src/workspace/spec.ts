import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { isAbsolute, normalize, resolve } from "node:path";
import { z } from "zod";
import { InvalidSessionOptions } from "../errors.js";
import { checkInput } from "../validation/check-input.js";
import { must, nonEmptyString, strictFields } from "../validation/rules.js";
import type { WorkspaceKind } from "./result.js";

/** What every kind of workspace may add. */
interface WorkspaceCommon {
  /**
   * Keep the folder after the session closed (for a report or a look by hand); its path is
   * `result.workspace.path`. By default the folder is removed when the session closes.
   */
  readonly keep?: boolean;
  /**
   * Paths (relative to the workspace) whose content the result keeps, changed or not: files,
   * folders of files, or globs (`"out/*.json"`; `**` spans folders, `?`, `[...]` and
   * `{a,b}` as in a shell). Symbolic links are never followed.
   */
  readonly artifacts?: readonly string[];
}

/**
 * A session's workspace: the agent's working directory, made fresh for each session (and
 * so for each trial) and compared with how it started when the session closes.
 *
 * - `{ copy: "<folder>" }`: a copy of the folder (symbolic links copied as links).
 * - `{ gitWorktree: "<repo>", ref? }`: a detached git worktree of the repository at `ref`
 *   (default `HEAD`); the repository itself is not changed, and the worktree is removed.
 * - `{ readOnly: "<folder>" }`: a copy the session must not change; a write fails the
 *   session with the paths it changed.
 *
 * Relative paths resolve against the kit's `cwd`.
 *
 * @example
 * ```ts
 * const session = agent.session({ server, workspace: { copy: "fixtures/project", artifacts: ["out/report.json"] } });
 * ```
 */
export type WorkspaceOptions =
  | (WorkspaceCommon & { readonly copy: string })
  | (WorkspaceCommon & { readonly gitWorktree: string; readonly ref?: string })
  | (WorkspaceCommon & { readonly readOnly: string });

/** A workspace option checked against the disk, ready to be made at `open()`. */
export interface WorkspaceSpec {
  readonly kind: WorkspaceKind;
  /** The folder or repository, absolute. */
  readonly source: string;
  readonly ref: string | null;
  /** The commit `ref` resolved to (gitWorktree only). */
  readonly commit: string | null;
  readonly keep: boolean;
  readonly artifacts: readonly string[];
}

const folder = nonEmptyString();

const workspaceSchema = strictFields(
  {
    copy: folder.optional(),
    gitWorktree: folder.optional(),
    ref: nonEmptyString().optional(),
    readOnly: folder.optional(),
    keep: z.boolean(must("true or false")).optional(),
    artifacts: z.array(nonEmptyString(), must("an array of relative paths or globs")).optional(),
  },
  {
    unknown: "is not a workspace field",
    listed: "the fields are",
    notAnObject: () =>
      'must be { copy: "<folder>" }, { gitWorktree: "<repo>", ref? } or { readOnly: "<folder>" }.',
  },
).superRefine((options, context) => {
  const kinds = (["copy", "gitWorktree", "readOnly"] as const).filter(
    (kind) => options[kind] !== undefined,
  );
  if (kinds.length !== 1) {
    context.addIssue({
      code: "custom",
      path: kinds.length === 0 ? [] : [kinds[1]!],
      message:
        kinds.length === 0
          ? 'names no folder: give one of copy: "<folder>", gitWorktree: "<repo>" or readOnly: "<folder>".'
          : `gives ${kinds.join(" and ")}: a workspace is one of copy, gitWorktree or readOnly.`,
    });
  }
  if (options.ref !== undefined && options.gitWorktree === undefined) {
    context.addIssue({
      code: "custom",
      path: ["ref"],
      message: "is only for gitWorktree (the commit, branch or tag to check out).",
    });
  }
  for (const [index, path] of (options.artifacts ?? []).entries()) {
    const clean = normalize(path);
    if (isAbsolute(path) || clean === ".." || clean.startsWith("../")) {
      context.addIssue({
        code: "custom",
        path: ["artifacts", index],
        message: `(${JSON.stringify(path)}) must be a path inside the workspace, relative to it.`,
      });
    }
  }
});

function refuse(field: string, problem: string): InvalidSessionOptions {
  return new InvalidSessionOptions(field === "" ? "workspace" : `workspace.${field}`, problem);
}

function existingFolder(field: string, given: string, cwd: string): string {
  const dir = isAbsolute(given) ? given : resolve(cwd, given);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw refuse(field, `names ${JSON.stringify(dir)}, which is not an existing folder.`);
  return dir;
}

/** Runs git (argv, no shell) and returns its stdout, or throws with its stderr. */
export function git(args: readonly string[], cwd: string): string {
  const run = spawnSync("git", args, { cwd, encoding: "utf8", timeout: 30_000 });
  if (run.error) throw new Error(`git ${args[0] ?? ""} could not run: ${run.error.message}`);
  if (run.status !== 0) {
    throw new Error(`git ${args.join(" ")} failed: ${(run.stderr || run.stdout).trim()}`);
  }
  return run.stdout;
}

/**
 * Checks a session's `workspace` option against the disk (the folder exists; a repository's
 * ref resolves to a commit), before anything starts.
 *
 * @throws {@link InvalidSessionOptions} naming the field and what to give instead.
 */
export function resolveWorkspace(options: unknown, cwd: string): WorkspaceSpec {
  const checked = checkInput(workspaceSchema, options, (problem) =>
    refuse(problem.field, problem.problem),
  );
  const common = { keep: checked.keep ?? false, artifacts: checked.artifacts ?? [] };
  if (checked.copy !== undefined) {
    return {
      kind: "copy",
      source: existingFolder("copy", checked.copy, cwd),
      ref: null,
      commit: null,
      ...common,
    };
  }
  if (checked.readOnly !== undefined) {
    return {
      kind: "readOnly",
      source: existingFolder("readOnly", checked.readOnly, cwd),
      ref: null,
      commit: null,
      ...common,
    };
  }
  const repo = existingFolder("gitWorktree", checked.gitWorktree!, cwd);
  const ref = checked.ref ?? "HEAD";
  let top: string;
  try {
    top = git(["rev-parse", "--show-toplevel"], repo).trim();
  } catch (error) {
    throw refuse(
      "gitWorktree",
      `names ${JSON.stringify(repo)}, which is not a git repository (${(error as Error).message}).`,
    );
  }
  let commit: string;
  try {
    commit = git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], top).trim();
  } catch {
    throw refuse(
      checked.ref === undefined ? "gitWorktree" : "ref",
      `${JSON.stringify(ref)} is not a commit of ${JSON.stringify(top)}: give a commit, branch or tag it has.`,
    );
  }
  return { kind: "gitWorktree", source: top, ref, commit, ...common };
}
