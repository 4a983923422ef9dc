#!/usr/bin/env node
// Builds the native stdio relay (stdio-relay.c), and group-exec.c (a server's own process
// group without a session of its own, see there), with the machine's C compiler, at install
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

/** Compiles `sourceFile` to `binaryFile` with its hash as `hashMacro`; a problem, or undefined. */
function build(sourceFile, binaryFile, hashMacro, libraries) {
  const hash = createHash("sha256").update(readFileSync(sourceFile)).digest("hex");
  const partial = `${binaryFile}.${process.pid}.partial`;
  const compilers = [process.env.CC, "cc", "gcc", "clang"].filter(Boolean);
  const tried = [];
  for (const compiler of compilers) {
    const run = spawnSync(
      compiler,
      [
        "-O2",
        "-std=c11",
        "-Wall",
        `-D${hashMacro}="${hash}"`,
        "-o",
        partial,
        sourceFile,
        ...libraries,
      ],
      { encoding: "utf8", shell: false },
    );
    if (run.status === 0) {
      renameSync(partial, binaryFile);
      return undefined;
    }
    tried.push(
      `${compiler}: ${run.error ? run.error.message : (run.stderr || "").trim().split("\n")[0]}`,
    );
    rmSync(partial, { force: true });
  }
  rmSync(binaryFile, { force: true });
  return `no working C compiler (${tried.join("; ")})`;
}

function main() {
  if (process.platform === "win32") return "not on Windows: the Node relay is used";
  mkdirSync(outDir, { recursive: true });
  // The stamp file of earlier versions: the hash now lives in the binary itself.
  rmSync(join(outDir, "stdio-relay.sha256"), { force: true });
  const groupExec = build(
    join(__dirname, "group-exec.c"),
    join(outDir, "group-exec"),
    "GROUP_EXEC_SOURCE_SHA256",
    [],
  );
  if (groupExec) {
    console.warn(
      `@jest-m3/core: group-exec not built, ${groupExec}: direct clients start servers in a session of their own (slower on a busy Linux machine).`,
    );
  }
  const relay = build(source, binary, "RELAY_SOURCE_SHA256", ["-lm"]);
  return relay
    ? `${relay}: the Node relay is used (about 40 MB and 40 ms per stdio server)`
    : undefined;
}

try {
  const skipped = main();
  if (skipped) console.warn(`@jest-m3/core: native stdio relay not built, ${skipped}.`);
} catch (error) {
  console.warn(
    `@jest-m3/core: native stdio relay not built (${error.message}); the Node relay is used.`,
  );
}
