#!/usr/bin/env node
// Fails when a package's tests reach into another package by relative path: an import,
// export or require of `../../<other package>/...` (the repository's examples/ and bench/
// are not packages and stay reachable), or a path string naming another
// package's test folder (`packages/<other>/test/...`). What the packages' tests share lives
// in packages/test-support, imported as `@jest-m3/test-support`; a package's own code is
// reached through its name (`@jest-m3/core/harness`), as a user would. Run by `npm run lint`.
//
//   node scripts/check-test-imports.mjs [<packages folder>]   (default: packages)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;

function files(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === "node_modules" || entry === "dist") return [];
    if (statSync(path).isDirectory()) return files(path);
    return SOURCE.test(path) && !path.endsWith(".d.ts") ? [path] : [];
  });
}

/** The relative specifiers `text` imports, exports from or requires, with their line. */
function specifiersOf(text) {
  const found = [];
  const pattern =
    /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bjest\.mock\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
  for (const match of text.matchAll(pattern)) {
    found.push({ specifier: match[1], line: text.slice(0, match.index).split("\n").length });
  }
  return found;
}

/**
 * The path strings of `text` that name the test folder of a package other than `own`, whole
 * (`"packages/core/test/..."`) or as path segments (`join(..., "core", "test", ...)`).
 */
function foreignTestPaths(text, own, packageNames) {
  const found = [];
  for (const match of text.matchAll(/["']([a-z0-9-]+)["']\s*,\s*["']test["']/g)) {
    if (match[1] === own || !packageNames.includes(match[1])) continue;
    found.push({ path: match[0], line: text.slice(0, match.index).split("\n").length });
  }
  for (const match of text.matchAll(
    /["'`][^"'`\n]*\bpackages\/([a-z0-9-]+)\/test\/[^"'`\n]*["'`]/g,
  )) {
    if (match[1] === own) continue;
    found.push({ path: match[0], line: text.slice(0, match.index).split("\n").length });
  }
  return found;
}

/** Every problem under `packagesDir`, as lines to print. */
export function testImportProblems(packagesDir) {
  const problems = [];
  const packageNames = readdirSync(packagesDir);
  for (const name of packageNames) {
    const tests = join(packagesDir, name, "test");
    if (!existsSync(tests)) continue;
    const own = resolve(packagesDir, name);
    for (const file of files(tests)) {
      const text = readFileSync(file, "utf8");
      const shown = relative(root, file).split(sep).join("/");
      for (const { specifier, line } of specifiersOf(text)) {
        const target = resolve(dirname(file), specifier);
        if (target === own || target.startsWith(own + sep)) continue;
        if (!target.startsWith(resolve(packagesDir) + sep)) continue; // examples/, bench/: shared on purpose
        problems.push(
          `${shown}:${line} imports "${specifier}", outside its package: move what it needs ` +
            `to packages/test-support and import it from "@jest-m3/test-support".`,
        );
      }
      for (const { path, line } of foreignTestPaths(text, name, packageNames)) {
        problems.push(
          `${shown}:${line} names another package's test folder (${path}): move the file to ` +
            `packages/test-support (fixturePath() gives its path).`,
        );
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join(root, "packages"));
  const problems = testImportProblems(dir);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`${problems.length} test import(s) reach into another package.`);
    process.exit(1);
  }
}
