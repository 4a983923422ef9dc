/**
 * Workspaces below the agent: bad `workspace` options refused at `agent.session()` (before
 * anything starts), `cwd: "workspace"` refused by the direct client, and the snapshot diff
 * on real folders (large and binary files, renames by content, links not followed, text
 * diffs).
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidServerSpec, InvalidSessionOptions, MCPTestKit } from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";
import { queryChangedFiles, fileContentOf } from "@jest-m3/core/runner";
import { diffSnapshots } from "../dist/workspace/diff.js";
import { takeSnapshot } from "../dist/workspace/snapshot.js";
import { unifiedDiff } from "../dist/workspace/text-diff.js";
import { resolveWorkspace } from "../dist/workspace/spec.js";
import { Workspace } from "../dist/workspace/workspace.js";

const shipping = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs")],
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "m3-ws-core-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("bad workspace options are refused at agent.session()", () => {
  test.each([
    [
      { copy: "no-such-folder" },
      /Session option "workspace.copy" names ".*no-such-folder", which is not an existing folder./,
    ],
    [{}, /Session option "workspace" names no folder: give one of copy/],
    [{ copy: ".", readOnly: "." }, /Session option "workspace.readOnly" gives copy and readOnly/],
    [{ copy: ".", ref: "main" }, /Session option "workspace.ref" is only for gitWorktree/],
    [{ copy: ".", keep: "yes" }, /Session option "workspace.keep" must be true or false/],
    [
      { copy: ".", artifacts: ["../outside.txt"] },
      /workspace.artifacts\[0\]" \("..\/outside.txt"\) must be a path inside the workspace/,
    ],
    [
      { cpoy: "." },
      /is not a workspace field; the fields are copy, gitWorktree, ref, readOnly, keep, artifacts. Did you mean "copy"\?/,
    ],
    ["fixtures", /must be \{ copy: "<folder>" \}/],
  ])("%j", async (workspace, message) => {
    await using kit = new MCPTestKit({ env: {}, cwd: root, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const attempt = () => agent!.session({ server: shipping, workspace: workspace as never });
    expect(attempt).toThrow(InvalidSessionOptions);
    expect(attempt).toThrow(message);
    expect(kit.processes).toEqual([]);
  });

  test("a gitWorktree that is not a repository, and a ref it does not have", async () => {
    await using kit = new MCPTestKit({ env: {}, cwd: root, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    mkdirSync(join(root, "plain"));
    expect(() => agent!.session({ server: shipping, workspace: { gitWorktree: "plain" } })).toThrow(
      /Session option "workspace.gitWorktree" names ".*plain", which is not a git repository/,
    );
    execFileSync("git", ["init", "-q", join(root, "repo")]);
    expect(() =>
      agent!.session({ server: shipping, workspace: { gitWorktree: "repo", ref: "v9" } }),
    ).toThrow(
      /Session option "workspace.ref" "v9" is not a commit of .*: give a commit, branch or tag it has./,
    );
  });

  test('cwd: "workspace" is for agent sessions; the direct client refuses it', async () => {
    await using kit = new MCPTestKit({ env: {}, cwd: root });
    expect(() => kit.direct({ ...shipping, cwd: "workspace" })).toThrow(InvalidServerSpec);
    expect(() => kit.direct({ ...shipping, cwd: "workspace" })).toThrow(
      /cwd.*is "workspace", which only an agent session has/,
    );
  });
});

describe("the snapshot diff on real folders", () => {
  test("large and binary files, a rename by content, a link out of the folder not followed", async () => {
    const dir = join(root, "project");
    mkdirSync(join(dir, "src"), { recursive: true });
    const big = "x".repeat(2 * 1024 * 1024);
    writeFileSync(join(dir, "big.txt"), big);
    writeFileSync(join(dir, "image.bin"), Buffer.from([1, 2, 0, 3]));
    writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(root, "outside.txt"), "outside\n");
    symlinkSync(join(root, "outside.txt"), join(dir, "link.txt"));
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
    const before = await takeSnapshot(dir);
    expect([...before.keys()]).toEqual(["big.txt", "image.bin", "link.txt", "src/a.ts"]);

    writeFileSync(join(dir, "big.txt"), big + "y");
    writeFileSync(join(dir, "image.bin"), Buffer.from([1, 2, 0, 4]));
    execFileSync("mv", [join(dir, "src", "a.ts"), join(dir, "src", "b.ts")]);
    writeFileSync(join(root, "outside.txt"), "changed outside\n"); // through no path of the folder
    writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/other\n");
    const changes = diffSnapshots(before, await takeSnapshot(dir));
    expect(
      changes.map((change) => [
        change.change,
        change.path,
        change.from,
        change.binary,
        change.diff,
        change.note,
      ]),
    ).toEqual([
      ["modified", "big.txt", null, false, null, "larger than 1 MiB: hashed, not diffed"],
      ["modified", "image.bin", null, true, null, "binary"],
      ["renamed", "src/b.ts", "src/a.ts", false, null, null],
    ]);
    expect(changes[0]!.size).toBe(big.length + 1);
  });

  test("unified diffs: hunks with context, added and removed files, the final newline", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const after = before.replace("line 2\n", "line two\n").replace("line 18\n", "");
    expect(unifiedDiff("f.txt", before, after)).toBe(
      "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n line 3\n line 4\n line 5\n" +
        "@@ -15,6 +15,5 @@\n line 15\n line 16\n line 17\n-line 18\n line 19\n line 20\n",
    );
    expect(unifiedDiff("n.txt", null, "a\nb\n")).toBe(
      "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
    );
    expect(unifiedDiff("same.txt", "a\n", "a\n")).toBeNull();
    expect(unifiedDiff("eol.txt", "a\n", "a")).toContain("newline at end of file removed");
  });

  test("a copy is made per workspace, snapshotted, diffed, queried and removed", async () => {
    const source = join(root, "project");
    mkdirSync(source);
    writeFileSync(join(source, "a.txt"), "a\n");
    const made: string[] = [];
    const tempDir = async (prefix: string) => {
      const dir = mkdtempSync(join(root, prefix));
      made.push(dir);
      return dir;
    };
    const spec = resolveWorkspace({ copy: "project", artifacts: ["a.txt", "out/"] }, root);
    const [one, two] = await Promise.all([
      Workspace.create(spec, tempDir),
      Workspace.create(spec, tempDir),
    ]);
    expect(one!.path).not.toBe(two!.path);
    writeFileSync(join(one!.path, "b.txt"), "b\n");
    mkdirSync(join(two!.path, "out"));
    writeFileSync(join(two!.path, "out", "report.json"), "{}\n");
    const [first, second] = await Promise.all([one!.finish(), two!.finish()]);
    expect(first!.changes.map((change) => change.path)).toEqual(["b.txt"]);
    expect(second!.changes.map((change) => change.path)).toEqual(["out/report.json"]);
    expect(second!.artifacts.map((artifact) => [artifact.path, artifact.content])).toEqual([
      ["a.txt", "a\n"],
      ["out/report.json", "{}\n"],
    ]);
    expect(first!.artifacts.map((artifact) => [artifact.path, artifact.exists])).toEqual([
      ["a.txt", true],
      ["out", false],
    ]);
    expect(existsSync(first!.path) || existsSync(second!.path)).toBe(false);
    expect(readFileSync(join(source, "a.txt"), "utf8")).toBe("a\n");
    expect(queryChangedFiles(first!, ["b.txt"]).pass).toBe(true);
    expect(queryChangedFiles(first!, ["a.txt"], { mode: "superset" }).pass).toBe(false);
    expect(fileContentOf(first!, "a.txt")).toEqual({ state: "text", content: "a\n", change: null });
    expect(fileContentOf(second!, "zzz.txt")).toMatchObject({ state: "unrecorded" });
    expect(() => queryChangedFiles(first!, [], { mode: "inOrder" as never })).toThrow(
      /mode must be/,
    );
  });
});
