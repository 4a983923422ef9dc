// The documented install, as a new user runs it: `npm install --save-dev jest jest-m3
// @types/jest @types/node` and the documented tsconfig.json, in an empty folder, from this
// repository's packages packed as npm would publish them. TypeScript comes as ts-jest's
// peer (6.x today) or pinned to 5; CommonJS and ESM ("type": "module") projects; .test.ts
// and .test.js files. Needs the npm registry for jest and the @types packages.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOCUMENTED_TSCONFIG } from "@jest-m3/test-support";
import { REPO, removeTempDir, runJest, runToEnd, SHIPPING_SERVER } from "./support/user-project";

const PACKAGES = ["core", "scripted-model", "jest-m3"];

const directTest = `import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

const server: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(__dirname, "shipping-server.mjs")],
  cwd: __dirname,
};

test("quotes a parcel with structured content", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const shipping = kit.direct(server);
  const result = await shipping.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });
});
`;

const jsTest = (esm: boolean): string =>
  `${esm ? 'import { MCPTestKit, expect } from "jest-m3";' : 'const { MCPTestKit, expect } = require("jest-m3");'}
test("a JavaScript test", async () => {
  await using kit = new MCPTestKit({ env: {} });
  expect(kit.closed).toBe(false);
});
`;

/** Runs a command to its end; rejects with its output when it fails or outlives 300 s. */
async function sh(command: string, args: readonly string[], cwd: string): Promise<string> {
  const run = await runToEnd(command, args, { cwd, timeoutMs: 300_000 });
  if (run.status === 0) return run.stdout;
  const how = run.signal ?? run.status;
  throw new Error(`${command} ${args.join(" ")} failed (${how}):\n${run.stdout}\n${run.stderr}`);
}

let root: string;
/** The documented install, one folder per TypeScript choice, started together (see below). */
const installs = new Map<string, Promise<string>>();

// The packages are packed once, by one npm, and both installs run side by side: they wait
// on the registry and the disk, not on each other, and the second one finishes while the
// first one's projects run. Each describe awaits only its own install, so a failed install
// fails only its own tests.
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "jest-m3-install-"));
  const packs = join(root, "packs");
  mkdirSync(packs);
  const workspaces = PACKAGES.flatMap((name) => ["--workspace", `packages/${name}`]);
  const packed = JSON.parse(
    await sh("npm", ["pack", "--json", "--pack-destination", packs, ...workspaces], REPO),
  ) as Array<{ filename: string }>;
  expect(packed).toHaveLength(PACKAGES.length);
  const tarballs = packed.map((pack) => join(packs, pack.filename));
  for (const [name, extra] of [
    ["ts-default", []],
    ["ts-5", ["typescript@5"]],
  ] as const) {
    const installing = install(name, tarballs, extra);
    // Handled here, awaited (and reported) by the describe that uses it.
    installing.catch(() => undefined);
    installs.set(name, installing);
  }
});
afterAll(async () => {
  // An install still running when its describe failed must not outlive the file.
  await Promise.allSettled(installs.values());
  removeTempDir(root);
});

/** A folder with the documented install done in it; the registry's jest-m3 is the packed one. */
async function install(
  name: string,
  tarballs: readonly string[],
  extra: readonly string[],
): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, version: "1.0.0", private: true }),
  );
  await sh(
    "npm",
    [
      "install",
      "--save-dev",
      "--no-audit",
      "--no-fund",
      "jest",
      ...tarballs,
      "@types/jest",
      "@types/node",
      ...extra,
    ],
    dir,
  );
  return dir;
}

/** A project beside an installed one, sharing its node_modules. */
function project(
  installed: string,
  name: string,
  esm: boolean,
  files: Record<string, string>,
): string {
  const dir = join(root, name);
  mkdirSync(dir);
  symlinkSync(join(installed, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, version: "1.0.0", private: true, ...(esm ? { type: "module" } : {}) }),
  );
  writeFileSync(
    join(dir, "jest.config.js"),
    esm ? 'export default { preset: "jest-m3" };\n' : 'module.exports = { preset: "jest-m3" };\n',
  );
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(DOCUMENTED_TSCONFIG, null, 2));
  writeFileSync(join(dir, "shipping-server.mjs"), readFileSync(SHIPPING_SERVER, "utf8"));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const typescriptVersion = (dir: string): string =>
  (
    JSON.parse(readFileSync(join(dir, "node_modules", "typescript", "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

function expectGreen(dir: string, tests: number): void {
  const run = runJest(dir, { timeoutMs: 180_000 });
  expect(run.output).toContain(`${tests} passed`);
  expect(run.output).not.toContain("ts-jest[");
  expect(run.output).not.toContain("esModuleInterop");
  expect(run.status).toBe(0);
}

/** A project of `name` with the direct .test.ts and a plain .test.js, both passing. */
function expectBothGreen(installed: string, name: string, esm: boolean): void {
  expectGreen(
    project(installed, name, esm, { "direct.test.ts": directTest, "plain.test.js": jsTest(esm) }),
    2,
  );
}

/** Registers the install `key` before the block's tests; returns its folder (in a test). */
function useInstall(key: string): () => string {
  let installed: string | undefined;
  beforeAll(async () => {
    installed = await installs.get(key)!;
  }, 300_000);
  return () => installed!;
}

describe("the documented install, with the TypeScript npm picks (6)", () => {
  const installed = useInstall("ts-default");

  test("npm picked TypeScript 6", () => {
    expect(typescriptVersion(installed())).toMatch(/^6\./);
  });

  test("a CommonJS project runs .test.ts and .test.js", () => {
    expectBothGreen(installed(), "cjs-6", false);
  });

  test('an ESM project ("type": "module") runs .test.ts and .test.js', () => {
    expectBothGreen(installed(), "esm-6", true);
  });
});

describe("the documented install with TypeScript 5", () => {
  const installed = useInstall("ts-5");

  test("a CommonJS and an ESM project run .test.ts and .test.js", () => {
    expect(typescriptVersion(installed())).toMatch(/^5\./);
    expectBothGreen(installed(), "cjs-5", false);
    expectBothGreen(installed(), "esm-5", true);
  });
});
