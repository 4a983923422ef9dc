/**
 * The adapter kit's loader of a package that is an ECMAScript module only, with a real such
 * package on disk: through this test's own `require` (Jest's sandbox, which cannot require
 * it: the kit imports it with Node's loader instead) and through Node's own `require`; once
 * per caller and specifier, and a module that is missing fails and is tried again.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEsmModule } from "@jest-m3/core/adapter-kit";

interface EsmOnly {
  readonly kind: string;
  answer(): number;
}

let root: string;
let entry: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "m3-esm-module-"));
  const pkg = join(root, "node_modules", "m3-esm-only");
  await mkdir(pkg, { recursive: true });
  await writeFile(
    join(pkg, "package.json"),
    JSON.stringify({ name: "m3-esm-only", type: "module", exports: "./index.js" }),
  );
  await writeFile(
    join(pkg, "index.js"),
    'export const kind = import.meta.url.startsWith("file:") ? "esm" : "other";\nexport function answer() { return 42; }\n',
  );
  entry = join(pkg, "index.js");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test("a sandboxed require cannot take it; the kit imports it with Node's own loader", async () => {
  // Jest's require resolves the package but cannot evaluate an ES module.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the sandbox's require
  expect(() => require(entry) as unknown).toThrow();
  const sdk = await loadEsmModule<EsmOnly>(entry, require);
  expect(sdk.kind).toBe("esm");
  expect(sdk.answer()).toBe(42);
  // Once per caller and specifier: the same module again.
  expect(await loadEsmModule<EsmOnly>(entry, require)).toBe(sdk);
});

test("resolved as the caller's require resolves it, by package name", async () => {
  const from = createRequire(join(root, "caller.js"));
  const sdk = await loadEsmModule<EsmOnly>("m3-esm-only", from);
  expect(sdk.kind).toBe("esm");
  expect(sdk.answer()).toBe(42);
});

test("a module that is not there fails, and is looked for again on the next call", async () => {
  // This test's own require, counting the calls the kit makes of it.
  let asked = 0;
  const counting = Object.assign(
    (id: string): unknown => {
      asked += 1;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the sandbox's require
      return require(id) as unknown;
    },
    { resolve: require.resolve },
  ) as unknown as NodeRequire;
  const missing = join(root, "node_modules", "m3-esm-only", "missing.js");
  await expect(loadEsmModule(missing, counting)).rejects.toThrow(/missing\.js/);
  await expect(loadEsmModule(missing, counting)).rejects.toThrow(/missing\.js/);
  expect(asked).toBe(2);
  // A load that succeeded is kept.
  await loadEsmModule(entry, counting);
  await loadEsmModule(entry, counting);
  expect(asked).toBe(3);
});
