/**
 * `npx jest-m3 init`: scaffolds jest-m3 in an existing project folder: the Jest
 * configuration, a tsconfig.json when there is none, m3.config.json with a scripted model,
 * its script, a first direct test and (when the Codex harness is installed) a first agent
 * test, both against the user's server command. Running it again changes nothing; a file
 * that exists is never overwritten unless the user says yes (asked in a terminal) or
 * passes `--force`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** What `init` was asked. */
export interface InitOptions {
  /** The MCP server's command line, e.g. `node server.js` (split on spaces). */
  readonly server: string;
  /** The server's name in tests and allow-lists (default: the package's name). */
  readonly name?: string;
  /** Overwrite existing files without asking. */
  readonly force: boolean;
  /** Asks whether to overwrite a file; absent when no one can answer (not a terminal). */
  readonly confirm?: (question: string) => Promise<boolean>;
}

/** What happened to one file. */
export interface InitStep {
  readonly file: string;
  readonly action: "created" | "overwritten" | "kept" | "updated" | "skipped";
  readonly note?: string;
}

function serverSpecSource(name: string, command: readonly string[]): string {
  const [program, ...args] = command;
  const cmd = program === "node" ? "process.execPath" : JSON.stringify(program);
  return `const server: StdioServer = {
  name: ${JSON.stringify(name)},
  command: ${cmd},
  args: ${JSON.stringify(args)},
  cwd: join(__dirname, ".."),
};`;
}

function directTest(name: string, command: readonly string[]): string {
  return `import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

${serverSpecSource(name, command)}

test("the server starts and lists its tools", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(server);

  const tools = await client.listTools();

  expect(tools.length).toBeGreaterThan(0);
});
`;
}

function agentTest(name: string, command: readonly string[]): string {
  return `import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

${serverSpecSource(name, command)}

// The model is the scripted model of m3.config.json (offline); model-script.json says what
// it answers. Add a rule that calls one of your tools, then assert on it with toHaveToolCall.
test("an agent session with the server completes", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: [process.env.M3_MODEL!] }]);

  const result = await agent!.run("Say hello.", { server, timeout: 120_000 });

  expect(result).toBeCompleted();
  expect(result.turns[0]).toHaveTextContaining("Hello");
});
`;
}

const MODEL_SCRIPT = `${JSON.stringify(
  {
    rules: [
      {
        name: "hello",
        when: { user: { regex: "hello", flags: "i" } },
        steps: [{ reply: "Hello!" }],
      },
    ],
  },
  null,
  2,
)}\n`;

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022", "ESNext.Disposable"],
      module: "commonjs",
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      types: ["node", "jest"],
    },
  },
  null,
  2,
)}\n`;

/** The type check init puts before Jest in the test script: the preset only transpiles. */
export const TYPE_CHECK = "tsc --noEmit";

/**
 * The test script with the type check: none or npm's placeholder becomes `tsc --noEmit &&
 * jest`; a script that starts Jest gets the type check before it; one that already runs
 * tsc, or does something else, is left as it is.
 */
export function testScript(script: string | undefined): string {
  if (!script || /no test specified/.test(script)) return `${TYPE_CHECK} && jest`;
  if (/\btsc\b/.test(script)) return script;
  if (/^(npx )?jest\b/.test(script.trim())) return `${TYPE_CHECK} && ${script.trim()}`;
  return script;
}

function installed(cwd: string, name: string): boolean {
  try {
    createRequire(join(cwd, "package.json")).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** Splits a command line on spaces, keeping quoted parts together. */
export function splitCommand(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? "",
  );
}

/**
 * Scaffolds the project in `cwd` and returns what happened to each file. Idempotent: a
 * second run keeps every file.
 */
export async function init(cwd: string, options: InitOptions): Promise<InitStep[]> {
  const manifestPath = join(cwd, "package.json");
  const manifest = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>)
    : null;
  const esm = manifest?.type === "module";
  const command = splitCommand(options.server);
  if (command.length === 0)
    throw new Error("--server needs the command that starts your MCP server");
  const packageName = typeof manifest?.name === "string" ? manifest.name : "server";
  const name = (options.name ?? packageName.replace(/^@[^/]+\//, "")).replace(
    /[^A-Za-z0-9_-]/g,
    "_",
  );
  const withCodex = installed(cwd, "@jest-m3/harness-codex");

  const files: Array<[string, string]> = [
    [
      "jest.config.js",
      esm ? 'export default { preset: "jest-m3" };\n' : 'module.exports = { preset: "jest-m3" };\n',
    ],
    ["tsconfig.json", TSCONFIG],
    [
      "m3.config.json",
      `${JSON.stringify(
        {
          harnesses: withCodex ? ["codex"] : [],
          scriptedModel: { script: "test/model-script.json", env: { M3_MODEL: "gpt-5.5" } },
        },
        null,
        2,
      )}\n`,
    ],
    ["test/model-script.json", MODEL_SCRIPT],
    [`test/${name}.direct.test.ts`, directTest(name, command)],
    ...(withCodex
      ? ([[`test/${name}.agent.test.ts`, agentTest(name, command)]] as Array<[string, string]>)
      : []),
  ];

  const steps: InitStep[] = [];
  for (const [file, text] of files) {
    const path = join(cwd, file);
    if (existsSync(path)) {
      if (readFileSync(path, "utf8") === text) {
        steps.push({ file, action: "kept" });
        continue;
      }
      const overwrite =
        options.force ||
        (options.confirm !== undefined && (await options.confirm(`${file} exists. Overwrite it?`)));
      if (!overwrite) {
        const note =
          file === "jest.config.js" && !readFileSync(path, "utf8").includes("jest-m3")
            ? 'add preset: "jest-m3" to it'
            : file === "tsconfig.json"
              ? 'it needs "lib": ["ES2022", "ESNext.Disposable"] and "types": ["node", "jest"]'
              : undefined;
        steps.push({ file, action: "kept", ...(note ? { note } : {}) });
        continue;
      }
      writeFileSync(path, text);
      steps.push({ file, action: "overwritten" });
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    steps.push({ file, action: "created" });
  }

  if (manifest) {
    const scripts = (manifest.scripts ?? {}) as Record<string, string>;
    const test = testScript(scripts.test);
    if (test !== scripts.test) {
      manifest.scripts = { ...scripts, test };
      writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      steps.push({
        file: "package.json",
        action: "updated",
        note: `scripts.test is "${test}": the preset transpiles tests without type-checking them, tsc does`,
      });
    } else if (!/\btsc\b/.test(test)) {
      steps.push({
        file: "package.json",
        action: "kept",
        note: `scripts.test runs no type check: add "${TYPE_CHECK} && " before Jest (the preset only transpiles)`,
      });
    }
    if (!installed(cwd, "typescript")) {
      steps.push({
        file: "package.json",
        action: "skipped",
        note: "tsc needs TypeScript: npm install --save-dev typescript",
      });
    }
  }
  if (!withCodex) {
    steps.push({
      file: `test/${name}.agent.test.ts`,
      action: "skipped",
      note: "not written: install an agent first (npm install --save-dev @jest-m3/harness-codex @openai/codex@0.171.0 @jest-m3/scripted-model), then run init again",
    });
  }
  return steps;
}
