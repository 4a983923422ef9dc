#!/usr/bin/env node
// Fails when a file of packages/jest-m3/src imports code of the other process: Jest's main
// process (global setup and teardown, the reporter, the sequencer, the CLI) and its test
// workers (the environment, setup files, transforms, expect and the matchers) share only
// `shared` code, and the run reaches the workers only through shared/hand-off.ts. The table
// is the one docs/architecture.md shows ("jest-m3 by process"); change both together. Run
// by `npm run lint`.
//
//   node scripts/check-processes.mjs [<src folder>]   (default: packages/jest-m3/src)
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { relativeImports, sourceFiles } from "./source-tree.mjs";

/**
 * Where each path runs. An entry ending in `/` is a folder, else a file; the longest entry
 * that matches places a path. `shared` may import only `shared`; `main` and `worker` may
 * import themselves and `shared`.
 */
export const PROCESSES = {
  shared: ["shared/", "stats/", "format/"],
  main: ["main/", "report/", "store/", "cli/", "reporter.ts", "test-sequencer.ts"],
  worker: ["worker/", "matchers/", "matrix/", "index.ts", "types.ts", "environment.ts"],
};

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const files = sourceFiles;
/** Relative imports of `file` that are values (a type-only import crosses no process). */
const importsOf = (file) => relativeImports(file, { valuesOnly: true });

function processOf(path) {
  let best = { name: undefined, length: -1 };
  for (const [name, entries] of Object.entries(PROCESSES))
    for (const entry of entries) {
      const matches = entry.endsWith("/") ? path.startsWith(entry) : path === entry;
      if (matches && entry.length > best.length) best = { name, length: entry.length };
    }
  return best.name;
}

/** Every problem in `src`, as lines to print. */
export function processProblems(src) {
  const problems = [];
  const unplaced = new Set();
  for (const file of files(src)) {
    const from = relative(src, file).split(sep).join("/");
    const fromProcess = processOf(from);
    if (!fromProcess) {
      unplaced.add(from);
      continue;
    }
    for (const target of importsOf(file)) {
      const to = relative(src, target).split(sep).join("/");
      if (to.startsWith("../")) continue;
      const toProcess = processOf(to);
      if (!toProcess) unplaced.add(to);
      else if (toProcess !== "shared" && toProcess !== fromProcess)
        problems.push(
          `${from} (${fromProcess}) imports ${to} (${toProcess}): ${fromProcess} code may import ` +
            `only its own and shared code. Move what both need into shared/, or hand it over ` +
            `through shared/hand-off.ts.`,
        );
    }
  }
  for (const path of [...unplaced].sort())
    problems.push(
      `${path} runs in no named process: add it (or its folder) to PROCESSES in ` +
        `scripts/check-processes.mjs and to the table in docs/architecture.md.`,
    );
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const src = resolve(process.argv[2] ?? join(root, "packages", "jest-m3", "src"));
  const problems = processProblems(src);
  const where = relative(process.cwd(), src) || ".";
  if (problems.length > 0) {
    for (const problem of problems) console.error(`Processes in ${where}: ${problem}`);
    process.exit(1);
  }
  console.log(`Processes hold in ${where}: main and worker code share only shared code.`);
}
