// The adapter kit's Node installer, for adapters whose agent needs a newer Node than the one
// running jest-m3 (which runs on the Node users have). An adapter's install script calls
//   require("@jest-m3/core/agent-node-installer").installAgentNode({ agent, minimum, packageName })
// When neither this Node, the `node` on PATH nor the copy already installed is new enough,
// it installs the registry's Node build for this platform (node-<platform>-<arch>, pinned in
// node-runtime/) into this package's node-runtime/node_modules, where the kit's
// findAgentNode looks. One copy for every adapter that needs it; its own folder, so the
// binary never becomes the project's `node` (a dependency's bin would shadow it in npm
// scripts). Never fails the install: without it, the harness's readiness says what is missing.
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");
const { delimiter, join } = require("node:path");

const runtime = join(__dirname, "..", "node-runtime");
const binary = join(
  runtime,
  "node_modules",
  `node-${process.platform}-${process.arch}`,
  process.platform === "win32" ? "node.exe" : join("bin", "node"),
);

function parts(version) {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(version || "");
  return match ? match.slice(1).map(Number) : undefined;
}

function newEnough(version, minimum) {
  const have = parts(version);
  const need = parts(minimum);
  if (!have || !need) return false;
  for (let index = 0; index < 3; index++) {
    if (have[index] !== need[index]) return have[index] > need[index];
  }
  return true;
}

function versionOf(node) {
  try {
    return execFileSync(node, ["--version"], { encoding: "utf8", timeout: 15000 }).trim();
  } catch {
    return "";
  }
}

function pathNode() {
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    const candidate = join(dir, process.platform === "win32" ? "node.exe" : "node");
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Makes sure a Node ≥ `minimum` is at hand for `agent`; installs the pinned one into
 * node-runtime/ when none is. Returns what it did: "present" (a Node new enough exists:
 * this one, PATH's or the installed copy), "installed", "skipped" or "failed".
 *
 * @param {{ agent: string, minimum: string, packageName: string, skipVariable?: string }} spec
 * @returns {"present" | "installed" | "skipped" | "failed"}
 */
function installAgentNode(spec) {
  const { agent, minimum, packageName, skipVariable } = spec;
  if (skipVariable && process.env[skipVariable] === "1") return "skipped";
  if (newEnough(process.version, minimum)) return "present";
  const onPath = pathNode();
  if (onPath && newEnough(versionOf(onPath), minimum)) return "present";
  if (existsSync(binary) && newEnough(versionOf(binary), minimum)) return "present";
  const npm = process.env.npm_execpath;
  const [command, args] = npm
    ? [process.execPath, [npm]]
    : [process.platform === "win32" ? "npm.cmd" : "npm", []];
  const run = spawnSync(
    command,
    [
      ...args,
      "ci",
      "--prefix",
      runtime,
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel",
      "error",
    ],
    {
      stdio: "inherit",
      env: { ...process.env, npm_config_workspaces: "false", npm_config_workspace: "" },
    },
  );
  if (run.status === 0 && existsSync(binary) && newEnough(versionOf(binary), minimum)) {
    return "installed";
  }
  process.stderr.write(
    `${packageName}: could not install a Node >= ${minimum} for ${agent} into ${runtime} ` +
      `(npm ci exited ${run.status}). ${agent}'s readiness will say so; name a Node 22 you have ` +
      `with the harness's Node variable.\n`,
  );
  return "failed";
}

module.exports = { installAgentNode, runtimeDir: runtime, runtimeBinary: binary };
