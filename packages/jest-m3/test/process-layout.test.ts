// The lint step's process check (scripts/check-processes.mjs): main-process and worker code
// of packages/jest-m3/src share only shared code. Run on small trees written here and on the
// package's own src, as `npm run lint` runs it.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const root = join(__dirname, "..", "..", "..");
const script = join(root, "scripts", "check-processes.mjs");

function check(src: string): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [script, src], { encoding: "utf8" });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

let tree: string;
beforeEach(() => {
  tree = mkdtempSync(join(tmpdir(), "m3-processes-"));
});
afterEach(() => rmSync(tree, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
}

test("jest-m3's own src holds: main and worker code meet only in shared code", () => {
  const result = check(join(root, "packages", "jest-m3", "src"));
  expect(result.out).toContain("main and worker code share only shared code");
  expect(result.status).toBe(0);
});

test("a worker file importing main-process code fails, naming both files and the fix", () => {
  write({
    "main/reporter.ts": "export const r = 1;\n",
    "shared/hand-off.ts": "export const RUN_ENV = {};\n",
    "worker/setup.ts":
      'import { RUN_ENV } from "../shared/hand-off.js";\nimport { r } from "../main/reporter.js";\nexport const x = [RUN_ENV, r];\n',
    // A type-only import crosses no process.
    "matchers/m.ts": 'import type { r } from "../main/reporter.js";\nexport type M = typeof r;\n',
  });
  const result = check(tree);
  expect(result.status).toBe(1);
  expect(result.out).toContain(
    "worker/setup.ts (worker) imports main/reporter.ts (main): worker code may import only its own and shared code",
  );
  expect(result.out).toContain("shared/hand-off.ts");
  expect(result.out).not.toContain("matchers/m.ts");
});

test("shared code importing either side fails, and a file in no process is named", () => {
  write({
    "shared/config.ts": 'export { x } from "../worker/expect.js";\n',
    "worker/expect.ts": "export const x = 1;\n",
    "odd/place.ts": "export const y = 2;\n",
  });
  const result = check(tree);
  expect(result.status).toBe(1);
  expect(result.out).toContain("shared/config.ts (shared) imports worker/expect.ts (worker)");
  expect(result.out).toContain("odd/place.ts runs in no named process");
});

test("the table in docs/architecture.md is the script's table", () => {
  const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
  const text = readFileSync(script, "utf8");
  for (const process of ["main", "worker", "shared"]) {
    const entries = new RegExp(`${process}: \\[([^\\]]+)\\]`).exec(text)![1]!;
    const names = [...entries.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
    const row = doc.split("\n").find((line) => line.startsWith(`| ${process} `))!;
    const cell = row.split("|")[2]!;
    expect([...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1])).toEqual(names);
  }
});
