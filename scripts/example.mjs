#!/usr/bin/env node
// `npm run example`: the main job for a new user. Installs what is missing (from the
// lockfile), builds the packages, and runs the example tests in examples/shipping:
// offline on the scripted model by default, live with M3_PROVIDER=live.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(args) {
  console.log(`\n$ npm ${args.join(" ")}`);
  const result = spawnSync(npm, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(join(root, "node_modules", ".package-lock.json")))
  run(["install", "--no-audit", "--no-fund"]); // not `ci`: see .ci/run
run(["run", "build"]);
run(["test", "--workspace", "examples/shipping"]);
