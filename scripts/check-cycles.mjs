#!/usr/bin/env node
// Fails when the relative imports of a package's src/ form a cycle (type-only imports
// count: a cycle of types is still a tangle a reader has to untie). Run by `npm test`.
import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { relativeImports, sourceFiles } from "./source-tree.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const packages = join(root, "packages");

const files = sourceFiles;
const importsOf = (file) => relativeImports(file);

/** Strongly connected components with more than one file, or a file importing itself. */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const result = [];
  const visit = (node) => {
    meta.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!meta.has(next)) {
        visit(next);
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).low);
      } else if (meta.get(next).onStack) {
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).index);
      }
    }
    if (meta.get(node).low === meta.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        meta.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) result.push(component);
    }
  };
  for (const node of graph.keys()) if (!meta.has(node)) visit(node);
  return result;
}

let failed = false;
for (const name of readdirSync(packages)) {
  const src = join(packages, name, "src");
  try {
    statSync(src);
  } catch {
    continue;
  }
  const graph = new Map(files(src).map((file) => [file, importsOf(file)]));
  for (const component of cycles(graph)) {
    failed = true;
    console.error(
      `Import cycle in packages/${name}: ${component.map((file) => relative(src, file)).join(" -> ")}`,
    );
  }
}
if (failed) {
  console.error("Break each cycle: move the shared types to the layer that owns them.");
  process.exit(1);
}
console.log("No import cycles in packages/*/src.");
