/**
 * The adapter kit's native-binary lookup on a real project tree: the platform package's
 * binary next to the package (or hoisted beside it), the package's own candidate, a
 * placeholder refused by `accept`, and what was tried when nothing is installed.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nativeBinary } from "@jest-m3/core/adapter-kit";

// Each case gets its own project: Node keeps what it resolved (and what it did not find)
// for a path, so a tree is never changed under a lookup.
const projects: string[] = [];
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "m3-native-binary-"));
  projects.push(dir);
  return dir;
}
function pkg(root: string, name: string, files: Record<string, string> = {}): string {
  const dir = join(root, "node_modules", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0" }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
    chmodSync(join(dir, file), 0o755);
  }
  return dir;
}
afterAll(() => {
  for (const dir of projects) rmSync(dir, { recursive: true, force: true });
});

const search = {
  packageName: "@agents/cli",
  platformPackages: ["@agents/cli-test-os"],
  candidates: ({
    package: root,
    platforms,
  }: {
    package?: string;
    platforms: readonly string[];
  }) => [
    ...platforms.map((dir) => join(dir, "bin", "agent")),
    ...(root !== undefined ? [join(root, "bin", "agent")] : []),
  ],
};

test("the platform package's binary comes first; the package's own is the fallback", () => {
  const alone = project();
  const main = pkg(alone, "@agents/cli", { "bin/agent": "#!/bin/sh\n" });
  expect(nativeBinary({ ...search, bases: [alone] })).toEqual({ path: join(main, "bin", "agent") });
  const both = project();
  pkg(both, "@agents/cli", { "bin/agent": "#!/bin/sh\n" });
  const platform = pkg(both, "@agents/cli-test-os", { "bin/agent": "#!/bin/sh\n" });
  expect(nativeBinary({ ...search, bases: [both] })).toEqual({
    path: join(platform, "bin", "agent"),
  });
});

test("accept refuses a placeholder; nothing installed says what was looked for", () => {
  const placeholder = project();
  const main = pkg(placeholder, "@agents/cli", { "bin/agent": "placeholder" });
  const refused = nativeBinary({ ...search, accept: () => false, bases: [placeholder] });
  expect(refused).toEqual({ tried: [join(main, "bin", "agent")] });
  expect(nativeBinary({ ...search, bases: [project()] })).toEqual({
    tried: ["@agents/cli and @agents/cli-test-os (not installed)"],
  });
});
