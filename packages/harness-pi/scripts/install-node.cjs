#!/usr/bin/env node
// The package's install step: Pi 1.6 needs Node >= 22.19, and jest-m3 runs on the Node users
// have. When neither this Node nor the `node` on PATH is new enough, install the registry's
// Node build for this platform (node-<platform>-<arch>, pinned in node-runtime/) into
// node-runtime/node_modules, where the harness looks for it. Its own folder, so the binary
// never becomes the project's `node` (a dependency's bin would shadow it in npm scripts).
// Never fails the install: without it, the harness's readiness says what is missing.
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");
const { delimiter, join } = require("node:path");

const REQUIRED = [22, 19, 0];
const runtime = join(__dirname, "..", "node-runtime");
const binary = join(
  runtime,
  "node_modules",
  `node-${process.platform}-${process.arch}`,
  process.platform === "win32" ? "node.exe" : join("bin", "node"),
);

function newEnough(version) {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(version || "");
  if (!match) return false;
  const parts = match.slice(1).map(Number);
  for (let index = 0; index < 3; index++) {
    if (parts[index] !== REQUIRED[index]) return parts[index] > REQUIRED[index];
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

if (process.env.M3_PI_SKIP_NODE_INSTALL === "1") process.exit(0);
if (newEnough(process.version)) process.exit(0);
const onPath = pathNode();
if (onPath && newEnough(versionOf(onPath))) process.exit(0);
if (existsSync(binary) && newEnough(versionOf(binary))) process.exit(0);

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
if (run.status !== 0 || !existsSync(binary)) {
  process.stderr.write(
    `@jest-m3/harness-pi: could not install a Node >= 22.19 for Pi into ${runtime} ` +
      `(npm ci exited ${run.status}). Pi's readiness will say so; set M3_PI_NODE to a Node 22 to use one you have.\n`,
  );
}
