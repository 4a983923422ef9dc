#!/usr/bin/env node
// Builds the native stdio relay (stdio-relay.c) with the machine's C compiler, at install
// time. Never downloads anything: with no compiler (or on Windows) it says so and leaves
// the Node relay in charge; the kit checks the build's stamp before using it.
"use strict";
const { spawnSync } = require("node:child_process");
const { createHash } = require("node:crypto");
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const source = join(__dirname, "stdio-relay.c");
const outDir = join(__dirname, "..", "..", "..", "dist", "wire", "native");
const binary = join(outDir, "stdio-relay");
const stamp = join(outDir, "stdio-relay.sha256");

function main() {
  if (process.platform === "win32") return "not on Windows: the Node relay is used";
  const hash = createHash("sha256").update(readFileSync(source)).digest("hex");
  mkdirSync(outDir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  const compilers = [process.env.CC, "cc", "gcc", "clang"].filter(Boolean);
  const tried = [];
  for (const compiler of compilers) {
    const run = spawnSync(compiler, ["-O2", "-std=c11", "-Wall", "-o", partial, source, "-lm"], {
      encoding: "utf8",
      shell: false,
    });
    if (run.status === 0) {
      renameSync(partial, binary);
      writeFileSync(stamp, hash + "\n");
      return undefined;
    }
    tried.push(
      `${compiler}: ${run.error ? run.error.message : (run.stderr || "").trim().split("\n")[0]}`,
    );
    rmSync(partial, { force: true });
  }
  rmSync(stamp, { force: true });
  return `no working C compiler (${tried.join("; ")}): the Node relay is used (about 40 MB and 40 ms per stdio server)`;
}

try {
  const skipped = main();
  if (skipped) console.warn(`@jest-m3/core: native stdio relay not built, ${skipped}.`);
} catch (error) {
  console.warn(
    `@jest-m3/core: native stdio relay not built (${error.message}); the Node relay is used.`,
  );
}
