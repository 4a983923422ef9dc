#!/usr/bin/env node
// Builds the native stdio relay (stdio-relay.c) with the machine's C compiler, at install
// time. Never downloads anything, and no package ships a prebuilt binary: with no compiler
// (or on Windows) it says so and leaves the Node relay in charge. The binary carries the
// SHA-256 of the source it was built from (`stdio-relay --source-sha256`); the kit runs it
// once before first use and takes the Node relay when it does not run here or differs.
"use strict";
const { spawnSync } = require("node:child_process");
const { createHash } = require("node:crypto");
const { mkdirSync, readFileSync, renameSync, rmSync } = require("node:fs");
const { join } = require("node:path");

const source = join(__dirname, "stdio-relay.c");
const outDir = join(__dirname, "..", "..", "..", "dist", "wire", "native");
const binary = join(outDir, "stdio-relay");

function main() {
  if (process.platform === "win32") return "not on Windows: the Node relay is used";
  const hash = createHash("sha256").update(readFileSync(source)).digest("hex");
  mkdirSync(outDir, { recursive: true });
  // The stamp file of earlier versions: the hash now lives in the binary itself.
  rmSync(join(outDir, "stdio-relay.sha256"), { force: true });
  const partial = `${binary}.${process.pid}.partial`;
  const compilers = [process.env.CC, "cc", "gcc", "clang"].filter(Boolean);
  const tried = [];
  for (const compiler of compilers) {
    const run = spawnSync(
      compiler,
      ["-O2", "-std=c11", "-Wall", `-DRELAY_SOURCE_SHA256="${hash}"`, "-o", partial, source, "-lm"],
      { encoding: "utf8", shell: false },
    );
    if (run.status === 0) {
      renameSync(partial, binary);
      return undefined;
    }
    tried.push(
      `${compiler}: ${run.error ? run.error.message : (run.stderr || "").trim().split("\n")[0]}`,
    );
    rmSync(partial, { force: true });
  }
  rmSync(binary, { force: true });
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
