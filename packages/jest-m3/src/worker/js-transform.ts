/**
 * The preset's transform for JavaScript tests: each file compiled on its own to CommonJS by
 * TypeScript's `transpileModule`, so a `.test.js` with `import` runs in an ESM project
 * (`"type": "module"`) without `--experimental-vm-modules`, and `await using` works on any
 * Node.js jest-m3 supports. No type checking: JavaScript has no types to check.
 *
 * A transform of its own rather than a second ts-jest entry: ts-jest caches one
 * configuration per Jest project, so the options of whichever file came first would win.
 */
import { createRequire } from "node:module";
import type * as TypeScript from "typescript";

function typescript(): typeof TypeScript {
  // The project's TypeScript (ts-jest's peer), loaded only when a JavaScript test runs.
  return createRequire(__filename)("typescript") as typeof TypeScript;
}

/** Jest's transformer interface: CommonJS code with an inline source map. */
const transformer = {
  process(sourceText: string, sourcePath: string): { code: string } {
    const ts = typescript();
    const output = ts.transpileModule(sourceText, {
      fileName: sourcePath,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        allowJs: true,
        esModuleInterop: true,
        inlineSourceMap: true,
        inlineSources: true,
      },
    });
    return { code: output.outputText };
  },
};

export = transformer;
