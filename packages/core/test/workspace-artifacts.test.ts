/**
 * Globs in `workspace.artifacts` on real folders: `**` across folders, `*`, `?`, `[...]` and
 * `{a,b}`, each file once, in path order; symbolic links (to a file or a folder outside the
 * workspace) are neither followed by a glob nor by a literal path through them; a glob that
 * climbs out of the workspace is refused at `agent.session()`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { InvalidSessionOptions, MCPTestKit } from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";
import { fileContentOf } from "@jest-m3/core/runner";
import { globPattern } from "../dist/workspace/artifacts.js";
import { resolveWorkspace } from "../dist/workspace/spec.js";
import { Workspace } from "../dist/workspace/workspace.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "m3-ws-glob-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(base: string, path: string, text: string): void {
  mkdirSync(dirname(join(base, path)), { recursive: true });
  writeFileSync(join(base, path), text);
}

/** Makes a copy workspace of `files`, lets `act` change it, and returns its result. */
async function finished(
  files: Record<string, string>,
  artifacts: string[],
  act: (path: string) => void = () => undefined,
) {
  const source = join(root, "project");
  mkdirSync(source);
  for (const [path, text] of Object.entries(files)) write(source, path, text);
  const spec = resolveWorkspace({ copy: "project", artifacts }, root);
  const workspace = await Workspace.create(spec, async (prefix) => mkdtempSync(join(root, prefix)));
  act(workspace.path);
  return workspace.finish();
}

test("glob patterns: ** spans folders (none included), * and ? stay in one, classes and alternatives", () => {
  const matches = (glob: string, paths: string[]) =>
    paths.filter((path) => globPattern(glob).test(path));
  const paths = [
    "out/a.json",
    "out/deep/er/b.json",
    "out/c.txt",
    "out.json",
    "other/out/d.json",
    "out/.hidden.json",
    "log1.txt",
    "log22.txt",
    "logx.txt",
  ];
  expect(matches("out/**/*.json", paths)).toEqual([
    "out/a.json",
    "out/deep/er/b.json",
    "out/.hidden.json",
  ]);
  expect(matches("out/*.json", paths)).toEqual(["out/a.json", "out/.hidden.json"]);
  expect(matches("**/out/*.json", paths)).toEqual([
    "out/a.json",
    "other/out/d.json",
    "out/.hidden.json",
  ]);
  expect(matches("out/**", paths)).toEqual([
    "out/a.json",
    "out/deep/er/b.json",
    "out/c.txt",
    "out/.hidden.json",
  ]);
  expect(matches("log?.txt", paths)).toEqual(["log1.txt", "logx.txt"]);
  expect(matches("log[0-9].txt", paths)).toEqual(["log1.txt"]);
  expect(matches("log[!0-9].txt", paths)).toEqual(["logx.txt"]);
  expect(matches("out/*.{json,txt}", paths)).toEqual([
    "out/a.json",
    "out/c.txt",
    "out/.hidden.json",
  ]);
  expect(matches("out.json", paths)).toEqual(["out.json"]);
});

test("a glob keeps every matching file written in the session, changed or not, once, in path order", async () => {
  const result = await finished(
    { "out/keep.json": "{}\n", "src/app.ts": "x\n" },
    ["out/**/*.json", "out/keep.json", "src/*.ts", "nothing/**/*.bin"],
    (path) => {
      write(path, "out/run/1/report.json", '{"ok":true}\n');
      write(path, "out/run/1/report.txt", "no\n");
      write(path, "out/a.json", "[]\n");
    },
  );
  expect(result.error).toBeNull();
  expect(result.artifacts.map((artifact) => [artifact.path, artifact.content])).toEqual([
    ["out/a.json", "[]\n"],
    ["out/keep.json", "{}\n"],
    ["out/run/1/report.json", '{"ok":true}\n'],
    ["src/app.ts", "x\n"],
  ]);
  // The folder is gone; the kept content still answers toHaveFileContent's query.
  expect(fileContentOf(result, "out/keep.json")).toEqual({
    state: "text",
    content: "{}\n",
    change: null,
  });
});

test("symbolic links out of the workspace are not followed: not by a glob, not by a path through them", async () => {
  const outside = join(root, "outside");
  write(outside, "secret.json", '{"secret":"outside"}\n');
  write(outside, "deep/secret.json", '{"secret":"deeper"}\n');
  const result = await finished(
    { "out/real.json": "{}\n" },
    ["out/**/*.json", "**/*.json", "out/linked/secret.json", "out/file-link.json", "out/linked/"],
    (path) => {
      symlinkSync(outside, join(path, "out", "linked"));
      symlinkSync(join(outside, "secret.json"), join(path, "out", "file-link.json"));
    },
  );
  const read = result.artifacts.filter((artifact) => artifact.exists);
  expect(read.map((artifact) => artifact.path)).toEqual(["out/real.json"]);
  // Nothing of the files outside was read (a link's own target text is all the diff holds).
  expect(JSON.stringify(result)).not.toMatch(/secret\\?"|deeper/);
  // Named paths through or at a link are reported missing, not read.
  expect(
    result.artifacts.filter((artifact) => !artifact.exists).map((artifact) => artifact.path),
  ).toEqual(["out/linked/secret.json", "out/file-link.json", "out/linked"]);
  // The links themselves are in the diff, compared by their target text.
  expect(result.changes.map((change) => [change.path, change.type])).toEqual([
    ["out/file-link.json", "symlink"],
    ["out/linked", "symlink"],
  ]);
});

test("a workspace folder that is a link to outside is not walked by a glob starting there", async () => {
  const outside = join(root, "outside");
  write(outside, "x.json", "{}\n");
  const result = await finished({ "keep.txt": "k\n" }, ["out/**/*.json"], (path) => {
    symlinkSync(outside, join(path, "out"));
  });
  expect(result.artifacts).toEqual([]);
});

test("a glob that climbs out of the workspace is refused at agent.session(), naming the field", async () => {
  await using kit = new MCPTestKit({ env: {}, cwd: root, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
  mkdirSync(join(root, "project"));
  const server = { name: "s", command: process.execPath, args: ["-e", ""] };
  expect(() =>
    agent!.session({ server, workspace: { copy: "project", artifacts: ["out/../../**/*.json"] } }),
  ).toThrow(InvalidSessionOptions);
  expect(() =>
    agent!.session({ server, workspace: { copy: "project", artifacts: ["out/../../**/*.json"] } }),
  ).toThrow(/workspace.artifacts\[0\]" \("out\/..\/..\/\*\*\/\*.json"\) must be a path inside/);
});
