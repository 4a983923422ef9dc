#!/usr/bin/env node
// Fails when a public export of a package entry point has no TSDoc: every name a user, an
// adapter author or a runner binding can import says what it is. Run by `npm run lint`.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ts = createRequire(import.meta.url)("typescript");

const entries = [
  "packages/core/src/index.ts",
  "packages/core/src/harness.ts",
  "packages/core/src/runner.ts",
  "packages/core/src/lean.ts",
  "packages/core/src/validation.ts",
  "packages/core/src/testing.ts",
  "packages/scripted-model/src/index.ts",
  "packages/harness-codex/src/index.ts",
  "packages/harness-claude-code/src/index.ts",
  "packages/harness-acp/src/index.ts",
  "packages/harness-pi/src/index.ts",
  "packages/jest-m3/src/index.ts",
].filter((entry) => existsSync(join(root, entry)));

const program = ts.createProgram(
  entries.map((entry) => join(root, entry)),
  {
    strict: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();
const missing = [];
for (const entry of entries) {
  const source = program.getSourceFile(join(root, entry));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) continue;
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declarations = symbol.getDeclarations() ?? [];
    // Declarations from other packages (re-exports of core by jest-m3) are checked there.
    const own = declarations.filter(
      (declaration) =>
        !declaration.getSourceFile().fileName.includes("node_modules") &&
        !declaration.getSourceFile().fileName.endsWith(".d.ts"),
    );
    if (own.length === 0) continue;
    const documented = own.some(
      (declaration) =>
        ts.getJSDocCommentsAndTags(declaration).length > 0 ||
        ts.getJSDocCommentsAndTags(declaration.parent?.parent ?? declaration).length > 0,
    );
    if (!documented) {
      const file = relative(root, own[0].getSourceFile().fileName);
      missing.push(`${entry}: ${exported.getName()} (${file})`);
    }
  }
}
if (missing.length > 0) {
  console.error(`Public exports without TSDoc (${missing.length}):\n  ${missing.join("\n  ")}`);
  process.exit(1);
}
console.log(`Every public export of ${entries.length} entry points has TSDoc.`);
