/**
 * docs/harness-adapters.md's complete minimal adapter, built on the adapter kit, as the
 * page shows it: the block typechecks against the built entry points (strict), and the
 * adapter it defines passes the conformance suite with a real MCP server, as the page says.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { conformanceChecks, type HarnessDefinition } from "@jest-m3/core/harness";
import { shipping } from "./support/servers";

const page = readFileSync(join(__dirname, "..", "..", "..", "docs", "harness-adapters.md"), "utf8");
const section = page.slice(page.indexOf("## A complete minimal adapter"));
const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
// A file beside this test (never written), so imports resolve as they do in a project.
const virtual = join(__dirname, "docs-minimal-adapter.ts");

test("the page has the minimal adapter, on the kit", () => {
  expect(block).toContain('from "@jest-m3/core/adapter-kit"');
  expect(block).toContain("export default defineHarness(");
});

test("the minimal adapter typechecks (strict, no implicit any)", () => {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === virtual ? ts.createSourceFile(name, block, version) : read(name, version, ...rest);
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === virtual || exists(name);
  const program = ts.createProgram([virtual], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
  expect(problems).toEqual([]);
});

describe("the minimal adapter passes the conformance suite", () => {
  const { outputText } = ts.transpileModule(block, {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  const loaded: { exports: { default?: HarnessDefinition } } = { exports: {} };
  new Function("require", "module", "exports", outputText)(require, loaded, loaded.exports);
  const mini = loaded.exports.default!;
  const checks = conformanceChecks({
    harness: mini,
    selection: { models: ["none"] },
    server: shipping,
    tool: "shipping_quote",
    prompts: {
      callTool: 'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply 9 USD',
      hang: "hang",
      fail: "fail the provider answered HTTP 500",
    },
    turnTimeoutMs: 10_000,
  });
  for (const check of checks) test(check.name, () => check.run());
});
