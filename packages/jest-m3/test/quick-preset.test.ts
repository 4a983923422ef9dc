// The preset's quick path: a run whose tests never import jest-m3 starts no scripted model
// and probes no harness; ts-jest transpiles only, behind a cache key that still follows
// the tsconfig; `tsc --noEmit` is what reports type errors. Each project is a user's
// project run by Jest as a child process.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mayUseKit } from "../dist/shared/run-plan";
import { makeUserProject, REPO, runFolder, runJest, SHIPPING_SERVER } from "./support/user-project";

const ONE_LINE = 'test("one", () => {\n  expect(1).toBe(1);\n});\n';
// What a user's project names: every harness and the scripted model, as the example does.
const CONFIG = JSON.stringify({
  harnesses: ["codex", "claude-code"],
  scriptedModel: { script: "model-script.json" },
  agents: [{ harness: "codex", models: ["gpt-5.5"] }],
});
const SCRIPT = readFileSync(join(REPO, "examples", "shipping", "model-script.json"), "utf8");

describe("the quick preset", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const project = (files: Record<string, string>): string => {
    const dir = makeUserProject(files);
    dirs.push(dir);
    return dir;
  };

  test("a one-line test in a configured project starts no model and probes no harness", () => {
    const dir = project({
      "one.test.ts": ONE_LINE,
      "m3.config.json": CONFIG,
      "model-script.json": SCRIPT,
      // After the run, in Jest's main process (where the test ran, in band): which modules
      // the preset's reporter, global setup and teardown and environment loaded.
      "jest.config.js":
        'module.exports = { preset: "jest-m3", reporters: ["default", "<rootDir>/loaded.js"] };\n',
      "loaded.js":
        'module.exports = class { onRunComplete() { require("fs").writeFileSync(__dirname + "/loaded.json", JSON.stringify(Object.keys(require.cache))); } };\n',
    });
    const run = runJest(dir, { timeoutMs: 120_000 });
    expect(run.output).toContain("1 passed");
    expect(run.status).toBe(0);
    expect(run.output).not.toContain("model provider");
    expect(run.output).not.toContain("jest-m3: harness");
    const file = JSON.parse(readFileSync(join(runFolder(dir), "run.json"), "utf8"));
    expect(file).toMatchObject({ provider: null, readiness: {}, agents: [] });
    // The reporter still writes the run's report, and leaves the agent runs' history alone.
    const report = JSON.parse(readFileSync(join(runFolder(dir), "report.json"), "utf8"));
    expect(report.tests).toEqual({ total: 1, passed: 1, failed: 0 });
    expect(run.output).toContain("no test of this run uses the kit; the history is unchanged");
    expect(existsSync(join(dir, ".m3", "history.sqlite"))).toBe(false);
    // Nothing of the kit was loaded: no harness adapter (the configured names were only
    // found), no MCP SDK, no run-history engine.
    const loaded = JSON.parse(readFileSync(join(dir, "loaded.json"), "utf8")) as string[];
    expect(loaded.some((path) => path.includes("jest-m3"))).toBe(true);
    const heavy = loaded.filter((path) =>
      /@modelcontextprotocol[\\/]sdk|harness-(codex|claude-code|acp)[\\/]|sql\.js|[\\/]kit[\\/]kit\.js/.test(
        path,
      ),
    );
    expect(heavy).toEqual([]);
  });

  test("a test reaching jest-m3 through a helper of the project gets the model and the matchers", () => {
    const dir = project({
      "one.test.ts": ONE_LINE,
      "direct.test.ts": `
import { openShipping } from "./support/shipping";
test("quotes through a helper", async () => {
  const { kit, client } = openShipping();
  await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  await client.close();
  await kit.close();
  // The global expect has the kit's matchers: the kit's setup ran in this worker.
  expect(client).toHaveToolCall("shipping_quote", { status: "success", count: 1 });
  expect(process.env.M3_SCRIPTED_PROVIDERS).toContain("127.0.0.1");
});
`,
      "support/shipping.ts": `
import { MCPTestKit } from "jest-m3";
export function openShipping() {
  const kit = new MCPTestKit({ env: {} });
  const client = kit.direct({ name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] });
  return { kit, client };
}
`,
      "m3.config.json": JSON.stringify({ scriptedModel: { script: "model-script.json" } }),
      "model-script.json": SCRIPT,
    });
    const run = runJest(dir, { timeoutMs: 120_000 });
    expect(run.output).toContain("2 passed");
    expect(run.status).toBe(0);
    expect(run.output).toContain("jest-m3: model provider: scripted model at http://127.0.0.1:");
    const file = JSON.parse(readFileSync(join(runFolder(dir), "run.json"), "utf8"));
    expect(file.provider).toContain("scripted model at");
  });

  test("ts-jest transpiles only: a type error runs, and `tsc --noEmit` reports it", () => {
    const dir = project({
      "typed.test.ts":
        'const count: number = "three" as unknown as string;\ntest("runs", () => {\n  expect(count).toBe("three");\n});\n',
    });
    const run = runJest(dir, { timeoutMs: 120_000 });
    expect(run.output).toContain("1 passed");
    const tsc = spawnSync(
      process.execPath,
      [join(REPO, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", dir],
      { encoding: "utf8", timeout: 120_000 },
    );
    expect(tsc.status).not.toBe(0);
    expect(tsc.stdout).toContain("typed.test.ts(1,7): error TS2322");
  });

  test("a changed tsconfig is a new cache key: the warm cache never serves stale output", () => {
    // With useDefineForClassFields false a declared field is not an own property; with true
    // it is. The same source must compile both ways as the tsconfig changes.
    const dir = project({
      "fields.test.ts":
        'class Parcel {\n  weight?: number;\n}\ntest("fields", () => {\n  expect(Object.keys(new Parcel())).toEqual(JSON.parse(process.env.FIELDS!));\n});\n',
    });
    const cache = join(dir, "jest-cache");
    const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8"));
    const withFields = (define: boolean): void =>
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          ...tsconfig,
          compilerOptions: { ...tsconfig.compilerOptions, useDefineForClassFields: define },
        }),
      );
    const run = (fields: string[]) =>
      runJest(dir, {
        args: [`--cacheDirectory=${cache}`],
        env: { FIELDS: JSON.stringify(fields) },
        timeoutMs: 120_000,
      });
    withFields(false);
    expect(run([]).output).toContain("1 passed");
    expect(run([]).output).toContain("1 passed"); // warm: served from the cache
    withFields(true);
    const changed = run(["weight"]);
    expect(changed.output).toContain("1 passed");
    expect(changed.status).toBe(0);
  });
});

describe("the run plan", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jest-m3-run-plan-"));
    mkdirSync(join(dir, "node_modules", "left-pad"), { recursive: true });
    writeFileSync(
      join(dir, "node_modules", "left-pad", "package.json"),
      '{ "name": "left-pad", "main": "index.js" }',
    );
    writeFileSync(join(dir, "node_modules", "left-pad", "index.js"), "module.exports = 1;");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (files: Record<string, string>): string[] =>
    Object.entries(files).map(([name, text]) => {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    });

  test("builtins, installed packages and plain modules of the project do not use the kit", () => {
    const [test] = write({
      "a.test.ts":
        'import { join } from "node:path";\nimport pad from "left-pad";\nimport { x } from "./lib/x.js";\n',
      "lib/x.ts": 'import fs from "fs";\nexport const x = require("./y");\n',
      "lib/y.js": "module.exports = 2;\n",
    });
    expect(mayUseKit([test!])).toBe(false);
  });

  test("jest-m3 or @jest-m3/* anywhere in the chain uses the kit", () => {
    const [direct, chained, mocked] = write({
      "a.test.ts": 'import { expect } from "jest-m3";\n',
      "b.test.ts": 'import "./helpers";\n',
      "helpers/index.ts": 'export * from "../deep/kit";\n',
      "deep/kit.ts": 'export { MCPTestKit } from "@jest-m3/core";\n',
      "c.test.js": 'jest.mock("./x", () => jest.requireActual("@jest-m3/core/testing"));\n',
    });
    expect(mayUseKit([direct!])).toBe(true);
    expect(mayUseKit([chained!])).toBe(true);
    expect(mayUseKit([mocked!])).toBe(true);
  });

  test("a fixture kept in jest-m3's own folder (outside dist) is followed like any module", () => {
    // This repository's load and fault tests import fixtures from packages/jest-m3/test.
    const [test] = write({
      "a.test.ts": `import ${JSON.stringify(join(__dirname, "fixtures", "load", "load-session"))};\n`,
    });
    expect(mayUseKit([test!])).toBe(true);
  });

  test("what the plan cannot follow counts as using the kit", () => {
    const [alias, missing, workspace] = write({
      "a.test.ts": 'import { helper } from "@/helpers";\n',
      "b.test.ts": 'import { helper } from "./not-there";\n',
      "c.test.ts": 'import { helper } from "my-workspace-helpers";\n',
      "helpers/package.json": '{ "name": "my-workspace-helpers", "main": "index.js" }',
      "helpers/index.js": "module.exports = { helper: 1 };\n",
    });
    // A workspace package: linked into node_modules, its code the project's own.
    symlinkSync(join(dir, "helpers"), join(dir, "node_modules", "my-workspace-helpers"), "dir");
    expect(mayUseKit([alias!])).toBe(true);
    expect(mayUseKit([missing!])).toBe(true);
    expect(mayUseKit([workspace!])).toBe(true);
  });
});
