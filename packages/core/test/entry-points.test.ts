/**
 * The public surface of each of core's entry points, pinned: every exported name (values
 * and types, read from the built declarations with the TypeScript compiler), so a name
 * added, removed or turned from a value into a type is a visible diff in the snapshot.
 * Update it on purpose with `npx jest packages/core/test/entry-points.test.ts --ci=false -u`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";

const CORE = dirname(require.resolve("@jest-m3/core/package.json"));
const EXPORTS = JSON.parse(readFileSync(join(CORE, "package.json"), "utf8")).exports as Record<
  string,
  { types?: string } | string
>;
const ENTRIES = [
  ".",
  "./harness",
  "./adapter-kit",
  "./bridge-agent",
  "./runner",
  "./testing",
  "./lean",
  "./validation",
];

function declarations(entry: string): string {
  const target = EXPORTS[entry];
  if (typeof target !== "object" || target.types === undefined) {
    throw new Error(`packages/core/package.json exports no types for "${entry}"`);
  }
  return join(CORE, target.types);
}

const program = ts.createProgram(ENTRIES.map(declarations), {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  noEmit: true,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();

/** `name` for a value (or a class), `type name` for a type only, sorted. */
function surface(entry: string): string[] {
  const file = program.getSourceFile(declarations(entry));
  const module = file && checker.getSymbolAtLocation(file);
  if (!module) throw new Error(`no declarations for "${entry}"`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return target.flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`;
    })
    .sort((a, b) => a.replace(/^type /, "").localeCompare(b.replace(/^type /, "")));
}

const NAMED = ENTRIES.map((entry) => [`@jest-m3/core${entry.slice(1)}`, entry] as const);

describe.each(NAMED)("%s", (_name, entry) => {
  test("exports exactly the names in the snapshot", () => {
    expect(surface(entry)).toMatchSnapshot();
  });
});

test("the contract entry holds no adapter-kit part that is not marked as moved", () => {
  const kit = new Set(surface("./adapter-kit"));
  const harness = surface("./harness").filter((name) => kit.has(name));
  const text = readFileSync(join(CORE, "dist", "harness.d.ts"), "utf8");
  const unmarked = harness.filter((name) => {
    const bare = name.replace(/^type /, "");
    return !new RegExp(`@deprecated[^*]*\\*/\\s*(?:type\\s+)?${bare}\\b`).test(text);
  });
  expect(unmarked).toEqual([]);
});
