#!/usr/bin/env node
// Fails when a file of packages/core/src imports a file of a higher layer, or a path the
// table below does not place. The table is the one docs/architecture.md shows ("Core's
// layers"); change both together. Cycles are check-cycles.mjs's job. Run by `npm run lint`.
//
//   node scripts/check-layers.mjs [<src folder>]   (default: packages/core/src)
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { relativeImports, sourceFiles } from "./source-tree.mjs";

/**
 * Lowest first. A file may import its own layer and any lower one. An entry ending in `/`
 * is a folder, else a file; the longest entry that matches a path places it.
 */
export const LAYERS = [
  ["errors.ts", "text/"],
  ["evidence/", "validation/", "processes/", "provider-tap/records.ts", "workspace/"],
  ["servers/", "kit/context.ts"],
  ["wire/", "runtime/secret-scrubber.ts", "provider-tap/"],
  ["direct/"],
  ["harness/"],
  ["adapter-kit/"],
  ["runtime/"],
  ["agents/", "judge/"],
  ["kit/"],
  [
    "index.ts",
    "harness.ts",
    "adapter-kit.ts",
    "bridge-agent.ts",
    "runner.ts",
    "validation.ts",
    "lean.ts",
  ],
  ["testing/", "testing.ts"],
];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const files = sourceFiles;
const importsOf = (file) => relativeImports(file);

/** The layer index of `path` (relative to src, `/`-separated), or -1 when no entry places it. */
function layerOf(path) {
  let best = { index: -1, length: -1 };
  LAYERS.forEach((entries, index) => {
    for (const entry of entries) {
      const matches = entry.endsWith("/") ? path.startsWith(entry) : path === entry;
      if (matches && entry.length > best.length) best = { index, length: entry.length };
    }
  });
  return best.index;
}

const describe = (index) => LAYERS[index].join(", ");

/** Every problem in `src`, as lines to print. */
export function layerProblems(src) {
  const problems = [];
  const unplaced = new Set();
  for (const file of files(src)) {
    const from = relative(src, file).split(sep).join("/");
    const fromLayer = layerOf(from);
    if (fromLayer < 0) {
      unplaced.add(from);
      continue;
    }
    for (const target of importsOf(file)) {
      const to = relative(src, target).split(sep).join("/");
      if (to.startsWith("../")) continue; // outside src: another check's business
      const toLayer = layerOf(to);
      if (toLayer < 0) unplaced.add(to);
      else if (toLayer > fromLayer)
        problems.push(
          `${from} imports ${to}: layer ${fromLayer + 1} (${describe(fromLayer)}) may not import ` +
            `layer ${toLayer + 1} (${describe(toLayer)}).`,
        );
    }
  }
  for (const path of [...unplaced].sort())
    problems.push(
      `${path} is in no layer: add it (or its folder) to LAYERS in scripts/check-layers.mjs ` +
        `and to the table in docs/architecture.md.`,
    );
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const src = resolve(process.argv[2] ?? join(root, "packages", "core", "src"));
  const problems = layerProblems(src);
  const where = relative(process.cwd(), src) || ".";
  if (problems.length > 0) {
    for (const problem of problems) console.error(`Layering in ${where}: ${problem}`);
    console.error(
      "Move what the lower layer needs down to it (a type, a function), or place the file " +
        "in the layer that uses it; lowest first: " +
        LAYERS.map((entries) => entries.join(" ")).join(" -> "),
    );
    process.exit(1);
  }
  console.log(`Layers hold in ${where}: no file imports a higher layer.`);
}
