/**
 * Workspaces on a real Codex session (the real binary, the scripted model, a real MCP
 * server started in the workspace with `cwd: "workspace"`): what the server wrote, edited,
 * deleted and renamed is `result.workspace`, compared with the server's own log of what it
 * did; a git worktree at a ref; a read-only workspace written to; two trials that do not
 * see each other's files; the folder removed after close unless kept.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { ExecutionOutcome, MCPTestKit, expect, type ExecutionResult } from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { callRule, useScriptedModel } from "@jest-m3/test-support";
import { filesLog, filesServer } from "./support/files-server";

jest.setTimeout(120_000);

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]).toString(
  "base64",
);

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.invalid",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.invalid",
    },
  });
}

const messageOf = (assertion: () => void): string => {
  try {
    assertion();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the assertion passed");
};

describe("workspaces on a real Codex session", () => {
  let kit: MCPTestKit;
  let root: string;

  const model = useScriptedModel({
    rules: [
      {
        name: "edit the project",
        when: { user: "edit the project" },
        steps: [
          { call: "files:write_file", args: { path: "new.txt", content: "hello\n" } },
          { call: "files:write_file", args: { path: "edit.txt", content: "one\nTWO\nthree\n" } },
          { call: "files:delete_file", args: { path: "gone.txt" } },
          { call: "files:rename_file", args: { from: "old-name.txt", to: "new-name.txt" } },
          { call: "files:write_bytes", args: { path: "blob.bin", base64: PNG } },
          { reply: "Edited." },
        ],
      },
      callRule(
        /write (\S+) saying (\w+)/,
        "files:write_file",
        { path: "{{match.1}}", content: "{{match.2}}\n" },
        "Written.",
        "write one file",
      ),
    ],
  });
  beforeEach(async () => {
    kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
    root = await kit.tempDir("m3-workspace-test-");
  });
  afterEach(async () => {
    await kit.close();
  });

  function project(): string {
    const dir = join(root, "project");
    mkdirSync(dir);
    writeFileSync(join(dir, "keep.txt"), "unchanged\n");
    writeFileSync(join(dir, "edit.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(dir, "gone.txt"), "bye\n");
    writeFileSync(join(dir, "old-name.txt"), "moved content\n");
    return dir;
  }

  const agent = () =>
    kit.agents([{ harness: "codex", models: ["scripted"], provider: model.provider }])[0]!;

  async function oneTurn(
    options: Parameters<ReturnType<typeof agent>["session"]>[0],
    prompt: string,
  ): Promise<ExecutionResult> {
    const session = agent().session(options);
    {
      await using open = await session.open();
      await open.send(prompt);
    }
    return session.result;
  }

  test("a server started in a copied workspace: added, modified, deleted, renamed and binary files, as the server's log says", async () => {
    const source = project();
    const log = join(root, "files.jsonl");
    const result = await oneTurn(
      {
        server: filesServer(log),
        workspace: { copy: source, artifacts: ["keep.txt"] },
        timeout: 90_000,
      },
      "Please edit the project.",
    );
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveToolCall("write_file", { server: "files", status: "success", count: 2 });
    const workspace = result.workspace!;
    expect(workspace.kind).toBe("copy");
    expect(workspace.source).toBe(source);

    // Ground truth: the server ran in the workspace, and every path it touched is a change.
    const lines = filesLog(log);
    expect(lines.map((line) => line.op)).toEqual([
      "write_file",
      "write_file",
      "delete_file",
      "rename_file",
      "write_bytes",
    ]);
    for (const line of lines) expect(line.cwd).toBe(workspace.path);
    const touched = lines.map((line) => relative(workspace.path, line.path)).sort();
    expect(workspace.changes.map((change) => change.path)).toEqual(touched);

    expect(result).toHaveChangedFiles([
      { path: "blob.bin", change: "added" },
      { path: "edit.txt", change: "modified" },
      { path: "gone.txt", change: "deleted" },
      { path: "new-name.txt", change: "renamed", from: "old-name.txt" },
      { path: "new.txt", change: "added" },
    ]);
    expect(result).toHaveChangedFiles(
      ["new.txt", "edit.txt", "gone.txt", "new-name.txt", "blob.bin"],
      { mode: "unordered" },
    );
    expect(result).toHaveChangedFiles(["new.txt", "gone.txt"], { mode: "subset" });
    expect(result).toHaveChangedFiles(
      ["new.txt", "edit.txt", "gone.txt", "new-name.txt", "blob.bin", "never.txt"],
      { mode: "superset" },
    );
    expect(result).not.toHaveChangedFiles(["keep.txt"], { mode: "subset" });
    expect(result).not.toHaveChangedFiles(["new.txt", "gone.txt"]);

    const blob = workspace.changes.find((change) => change.path === "blob.bin")!;
    expect([blob.binary, blob.diff, blob.content, blob.size]).toEqual([true, null, null, 12]);
    const edit = workspace.changes.find((change) => change.path === "edit.txt")!;
    expect(edit.diff).toBe(
      "--- a/edit.txt\n+++ b/edit.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
    );
    expect(workspace.changes.find((change) => change.path === "gone.txt")!.diff).toBe(
      "--- a/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n",
    );

    expect(result).toHaveFileContent("new.txt", "hello\n");
    expect(result).toHaveFileContent("edit.txt", /TWO/);
    expect(result).toHaveFileContent("new-name.txt", expect.stringContaining("moved"));
    expect(result).toHaveFileContent("keep.txt", "unchanged\n"); // a named artifact
    expect(result).not.toHaveFileContent("new.txt", "bye\n");
    expect(workspace.artifacts).toEqual([
      expect.objectContaining({
        path: "keep.txt",
        exists: true,
        binary: false,
        content: "unchanged\n",
      }),
    ]);

    // The diff is in the failure messages.
    const missing = messageOf(() => expect(result).toHaveChangedFiles(["new.txt"]));
    expect(missing).toContain("Unexpected (4):");
    expect(missing).toContain("-two\n");
    expect(missing).toContain("+TWO");
    expect(missing).toContain("added blob.bin (binary)");
    const wrong = messageOf(() =>
      expect(result).toHaveFileContent("edit.txt", "one\ntwo\nthree\n"),
    );
    expect(wrong).toContain("-two");
    expect(wrong).toContain("+TWO");
    expect(messageOf(() => expect(result).toHaveFileContent("gone.txt", "bye\n"))).toContain(
      "the session deleted it",
    );

    // The source is untouched and the workspace is gone from the disk.
    expect(readFileSync(join(source, "edit.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    expect(existsSync(join(source, "gone.txt"))).toBe(true);
    expect(existsSync(join(source, "new.txt"))).toBe(false);
    expect(workspace.kept).toBe(false);
    expect(existsSync(workspace.path)).toBe(false);
  });

  test("two trials with copies of one folder do not see each other's writes", async () => {
    const source = project();
    const logs = [join(root, "a.jsonl"), join(root, "b.jsonl")];
    const agents = kit.agents(
      [{ harness: "codex", models: ["scripted"], provider: model.provider }],
      { trials: 2 },
    );
    expect(agents).toHaveLength(2);
    const sessions = agents.map((each, index) =>
      each.session({
        server: filesServer(logs[index]!),
        workspace: { copy: source },
        timeout: 90_000,
      }),
    );
    const opened = await Promise.all(sessions.map((session) => session.open()));
    await Promise.all([
      opened[0]!.send("Please write a.txt saying first"),
      opened[1]!.send("Please write b.txt saying second"),
    ]);
    await Promise.all(opened.map((session) => session.close()));
    const [first, second] = sessions.map((session) => session.result);
    expect(first!.workspace!.path).not.toBe(second!.workspace!.path);
    expect(filesLog(logs[0]!).map((line) => line.cwd)).toEqual([first!.workspace!.path]);
    expect(filesLog(logs[1]!).map((line) => line.cwd)).toEqual([second!.workspace!.path]);
    expect(first).toHaveChangedFiles([{ path: "a.txt", change: "added" }]);
    expect(second).toHaveChangedFiles([{ path: "b.txt", change: "added" }]);
    expect(first).toHaveFileContent("a.txt", "first\n");
    expect(existsSync(first!.workspace!.path)).toBe(false);
    expect(existsSync(second!.workspace!.path)).toBe(false);
  });

  test("a git worktree at a ref: the diff is against that ref, the host repository is untouched, the worktree removed", async () => {
    const repo = join(root, "repo");
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, "file.txt"), "v1\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "v1");
    git(repo, "tag", "v1");
    writeFileSync(join(repo, "file.txt"), "v2\n");
    writeFileSync(join(repo, "later.txt"), "only in v2\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "v2");
    const head = git(repo, "rev-parse", "HEAD").trim();
    const log = join(root, "files.jsonl");
    const result = await oneTurn(
      { server: filesServer(log), workspace: { gitWorktree: repo, ref: "v1" }, timeout: 90_000 },
      "Please write file.txt saying agent",
    );
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    const workspace = result.workspace!;
    expect([workspace.kind, workspace.ref, workspace.commit]).toEqual([
      "gitWorktree",
      "v1",
      git(repo, "rev-parse", "v1").trim(),
    ]);
    expect(filesLog(log).map((line) => line.cwd)).toEqual([workspace.path]);
    expect(result).toHaveChangedFiles([{ path: "file.txt", change: "modified" }]);
    expect(workspace.changes[0]!.diff).toBe(
      "--- a/file.txt\n+++ b/file.txt\n@@ -1,1 +1,1 @@\n-v1\n+agent\n",
    );
    // The host repository: same HEAD, clean, its file as committed, no worktree left.
    expect(git(repo, "rev-parse", "HEAD").trim()).toBe(head);
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(repo, "file.txt"), "utf8")).toBe("v2\n");
    expect(git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(workspace.path)).toBe(false);
  });

  test("a read-only workspace written to is a failed session naming the path", async () => {
    const source = project();
    const result = await oneTurn(
      {
        server: filesServer(join(root, "files.jsonl")),
        workspace: { readOnly: source },
        timeout: 90_000,
      },
      "Please write notes.txt saying oops",
    );
    expect(result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
    expect(result.error?.code).toBe("M3_WORKSPACE_WRITTEN");
    expect(result.error?.message).toContain(
      "The read-only workspace was written to: notes.txt (added).",
    );
    expect(result.error?.details).toEqual({ paths: ["notes.txt"] });
    expect(result).toHaveChangedFiles(["notes.txt"]);
    expect(existsSync(join(source, "notes.txt"))).toBe(false);
    expect(existsSync(result.workspace!.path)).toBe(false);
  });

  test("a session that fails to open still removes its workspace, and says what it was", async () => {
    const source = project();
    const session = agent().session({
      server: {
        name: "broken",
        command: process.execPath,
        args: ["-e", "process.exit(3)"],
        cwd: "workspace",
      },
      workspace: { copy: source },
      timeout: 60_000,
    });
    await expect(session.open()).rejects.toThrow();
    const result = session.result;
    expect(result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
    expect(result.workspace?.changes).toEqual([]);
    expect(existsSync(result.workspace!.path)).toBe(false);
    expect(existsSync(join(source, "keep.txt"))).toBe(true);
  });

  test("a kept workspace outlives the kit; a link out of it is copied as a link and not followed", async () => {
    const source = project();
    const outside = join(root, "outside.txt");
    writeFileSync(outside, "outside\n");
    symlinkSync(outside, join(source, "linked.txt"));
    const result = await oneTurn(
      {
        server: filesServer(join(root, "files.jsonl")),
        workspace: { copy: source, keep: true },
        timeout: 90_000,
      },
      "Please write linked.txt saying through",
    );
    const workspace = result.workspace!;
    try {
      // The server wrote through the link: the file outside changed, the link did not.
      expect(readFileSync(outside, "utf8")).toBe("through\n");
      await kit.close(); // removes the kit's temp folders, not a kept workspace
      expect(existsSync(root)).toBe(false);
      expect(workspace.kept).toBe(true);
      expect(existsSync(workspace.path)).toBe(true);
      expect(lstatSync(join(workspace.path, "linked.txt")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(workspace.path, "linked.txt"))).toBe(outside);
      expect(result).toHaveChangedFiles([]);
      expect(result).toHaveFileContent("keep.txt", "unchanged\n"); // read from the kept folder
    } finally {
      rmSync(join(workspace.path, ".."), { recursive: true, force: true });
    }
  });
});
