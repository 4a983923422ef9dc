// What the lint step's source checks share (check-cycles, check-layers, check-processes):
// the TypeScript files of a folder and the relative imports of one file.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Every `.ts` file below `dir` (declaration files left out). */
export function sourceFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * The files `file` imports by relative path (static, dynamic, `require` and `export … from`),
 * as absolute `.ts` paths. With `valuesOnly`, an `import type` or `export type` is left out:
 * it loads nothing at run time.
 */
export function relativeImports(file, { valuesOnly = false } = {}) {
  const text = readFileSync(file, "utf8");
  const found = [];
  const pattern =
    /(import|export)(\s+type)?[^;"]*?from\s*"(\.{1,2}\/[^"]+)"|import\s*\(\s*"(\.{1,2}\/[^"]+)"|require\(\s*"(\.{1,2}\/[^"]+)"\s*\)|import\s+"(\.{1,2}\/[^"]+)"/g;
  for (const match of text.matchAll(pattern)) {
    if (valuesOnly && match[2]) continue;
    const spec = match[3] ?? match[4] ?? match[5] ?? match[6];
    const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
    found.push(target.endsWith(".ts") ? target : `${target}.ts`);
  }
  return found;
}
