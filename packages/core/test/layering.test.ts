// The lint step's boundary checks, run as `npm run lint` runs them: scripts/check-layers.mjs
// (a lower layer of core importing a higher one) and scripts/check-agent-names.mjs (core's
// code naming an agent), on small source trees written here and on core's own src.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const root = join(__dirname, "..", "..", "..");
const coreSrc = join(root, "packages", "core", "src");

function run(script: string, src: string): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [join(root, "scripts", script), src], {
    encoding: "utf8",
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

let tree: string;
beforeEach(() => {
  tree = mkdtempSync(join(tmpdir(), "m3-layers-"));
});
afterEach(() => rmSync(tree, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
}

describe("check-layers", () => {
  test("a tree whose imports go down passes", () => {
    write({
      "errors.ts": "export class M3Error extends Error {}\n",
      "evidence/results.ts": 'import { M3Error } from "../errors.js";\nexport const e = M3Error;\n',
      "agents/session.ts": 'export type { e } from "../evidence/results.js";\n',
      "kit/context.ts": 'import type { X } from "../processes/managed-process.js";\n',
      "processes/managed-process.ts": "export type X = 1;\n",
    });
    const result = run("check-layers.mjs", tree);
    expect(result.out).toContain("no file imports a higher layer");
    expect(result.status).toBe(0);
  });

  test("a lower layer importing a higher one fails, naming both files and both layers", () => {
    write({
      "agents/results.ts": "export type TurnResult = { n: number };\n",
      "evidence/query.ts":
        'import type { TurnResult } from "../agents/results.js";\nexport type Q = TurnResult;\n',
      // A file placed lower than its folder (kit/context.ts) may not reach its folder's layer.
      "kit/kit.ts": "export const kit = 1;\n",
      "kit/context.ts": 'export { kit } from "./kit.js";\n',
      // A dynamic import counts too.
      "direct/client.ts": 'export const load = () => import("../runtime/runtime.js");\n',
      "runtime/runtime.ts": "export const r = 1;\n",
    });
    const result = run("check-layers.mjs", tree);
    expect(result.status).toBe(1);
    expect(result.out).toContain(
      "evidence/query.ts imports agents/results.ts: layer 2 (evidence/, validation/, processes/",
    );
    expect(result.out).toMatch(
      /evidence\/query\.ts imports agents\/results\.ts: layer 2 \([^)]*\) may not import layer 9/,
    );
    expect(result.out).toContain("kit/context.ts imports kit/kit.ts: layer 3");
    expect(result.out).toContain("direct/client.ts imports runtime/runtime.ts: layer 5 (direct/)");
    expect(result.out).toMatch(/Move what the lower layer needs down to it/);
  });

  test("a folder in no layer fails, saying where to place it", () => {
    write({ "errors.ts": "", "gadgets/thing.ts": 'import "../errors.js";\n' });
    const result = run("check-layers.mjs", tree);
    expect(result.status).toBe(1);
    expect(result.out).toContain(
      "gadgets/thing.ts is in no layer: add it (or its folder) to LAYERS in scripts/check-layers.mjs and to the table in docs/architecture.md.",
    );
  });

  test("docs/architecture.md's table is the script's LAYERS, row by row", () => {
    const printed = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { LAYERS } from ${JSON.stringify(join(root, "scripts", "check-layers.mjs"))};` +
          "console.log(JSON.stringify(LAYERS));",
      ],
      { encoding: "utf8" },
    );
    const layers = JSON.parse(printed.stdout) as string[][];
    const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
    const section = doc.slice(doc.indexOf("### Core's layers"));
    const rows = [...section.matchAll(/^\| (\d+)\s+\| ([^|]+)\|/gm)].map((row) => ({
      layer: Number(row[1]),
      holds: [...row[2]!.matchAll(/`([^`]+)`/g)].map((name) => name[1]),
    }));
    expect(rows).toEqual(layers.map((holds, index) => ({ layer: index + 1, holds })));
  });

  test("core's own src: every file is placed and no file imports a higher layer", () => {
    const result = run("check-layers.mjs", coreSrc);
    expect(result.out).toContain("no file imports a higher layer");
    expect(result.status).toBe(0);
  });
});

describe("check-agent-names", () => {
  test("names in code fail, comments and model APIs do not", () => {
    write({
      "flagged.ts": [
        'const home = "CODEX_HOME";',
        "export const claudeCodeArgs = [home];",
        "export function isPi(name: string): boolean { return name === `pi`; }",
        "export const opencode = /opencode/;",
      ].join("\n"),
      "fine.ts": [
        "// Codex answers a thread id; Claude Code and Gemini CLI do not (a comment may say so).",
        "/** The Gemini CLI profile lives in harness-acp. */",
        'export const dialect: string = "gemini";',
        'export const message = "a Gemini API answer has a candidates list";',
        "export const api = { pid: 1, apiKey: 'x', kilobytes: 2, cursor: 'c' };",
      ].join("\n"),
    });
    const result = run("check-agent-names.mjs", tree);
    expect(result.status).toBe(1);
    const lines = result.out.split("\n").filter((line) => line.startsWith("Agent name in"));
    expect(lines.map((line) => line.replace(/^Agent name in .*\/(\w+\.ts:\d+)/, "$1"))).toEqual([
      'flagged.ts:1: "codex" in "CODEX_HOME"',
      'flagged.ts:2: "claude" in claudeCodeArgs',
      'flagged.ts:3: "pi" in isPi',
      'flagged.ts:3: "pi" in `pi`',
      'flagged.ts:4: "opencode" in opencode',
      'flagged.ts:4: "opencode" in /opencode/',
    ]);
    expect(result.out).toContain("Core knows no agent");
  });

  test("core's own src names no agent", () => {
    const result = run("check-agent-names.mjs", coreSrc);
    expect(result.out).toContain("No agent names in the code of");
    expect(result.status).toBe(0);
  });
});
