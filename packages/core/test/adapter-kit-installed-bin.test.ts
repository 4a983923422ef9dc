// installedBin finds an agent's bin in a user's project even when the agent's package.json
// `exports` leaves out "./package.json" (Pi's does: `require.resolve` of it throws
// ERR_PACKAGE_PATH_NOT_EXPORTED), by looking in node_modules from the project up.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installedBin, packageManifest } from "../src/adapter-kit/executables";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "m3-installed-bin-"));
  const pkg = join(project, "node_modules", "@agents", "hidden-manifest");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "@agents/hidden-manifest",
      version: "1.6.0",
      exports: { ".": "./dist/index.js" },
      bin: { hidden: "dist/cli.js" },
    }),
  );
  writeFileSync(join(pkg, "dist", "index.js"), "module.exports = {};\n");
  writeFileSync(join(pkg, "dist", "cli.js"), "#!/usr/bin/env node\nconsole.log('1.6.0');\n");
  chmodSync(join(pkg, "dist", "cli.js"), 0o755);
  mkdirSync(join(project, "test", "deep"), { recursive: true });
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

test("a package that does not export its package.json is still found, from a nested folder too", () => {
  // What Node itself says, so the test stands on the real resolution rule.
  const node = spawnSync(
    process.execPath,
    [
      "-e",
      'try { require.resolve("@agents/hidden-manifest/package.json") } catch (e) { console.log(e.code) }',
    ],
    { cwd: project, encoding: "utf8" },
  );
  expect(node.stdout.trim()).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
  const bin = join(project, "node_modules", "@agents", "hidden-manifest", "dist", "cli.js");
  expect(installedBin("@agents/hidden-manifest", "hidden", [project])).toBe(bin);
  expect(installedBin("@agents/hidden-manifest", "hidden", [join(project, "test", "deep")])).toBe(
    bin,
  );
  expect(packageManifest("@agents/not-there", project)).toBeUndefined();
  expect(installedBin("@agents/hidden-manifest", "other-bin", [project])).toBeUndefined();
});
