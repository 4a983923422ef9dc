// `npx jest-m3 init` and `npx jest-m3 doctor` in a user's project, run as child processes.
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeUserProject,
  REPO,
  removeTempDir,
  runJest,
  runToEnd,
  SHIPPING_SERVER,
} from "./support/user-project";

const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");

function cli(dir: string, args: readonly string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, M3_RUN_DIR: "", M3_PROVIDER: "", ...env },
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** {@link cli} without blocking: for runs that go side by side. */
async function cliAsync(
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; output: string }> {
  const run = await runToEnd(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: { ...process.env, M3_RUN_DIR: "", M3_PROVIDER: "", ...env },
    timeoutMs: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A server project with nothing of jest-m3 yet: its package.json and its server. */
function serverProject(): string {
  const dir = makeUserProject({
    "package.json": JSON.stringify({
      name: "todo-server",
      version: "1.0.0",
      scripts: { test: 'echo "Error: no test specified" && exit 1' },
    }),
  });
  // makeUserProject writes the preset's files; a new user's folder has neither.
  for (const file of ["jest.config.js", "tsconfig.json"]) {
    spawnSync("rm", [join(dir, file)]);
  }
  copyFileSync(SHIPPING_SERVER, join(dir, "server.mjs"));
  return dir;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeTempDir));

test("init scaffolds a project whose direct and agent tests pass, and a second init changes nothing", () => {
  const dir = serverProject();
  dirs.push(dir);
  const first = cli(dir, ["init", "--server", "node server.mjs"]);
  expect(first.status).toBe(0);
  for (const file of [
    "jest.config.js",
    "tsconfig.json",
    "m3.config.json",
    "test/model-script.json",
    "test/todo-server.direct.test.ts",
    "test/todo-server.agent.test.ts",
  ]) {
    expect(first.output).toMatch(new RegExp(`created\\s+${file.replace(/\./g, "\\.")}`));
  }
  const script = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts.test;
  expect(script).toBe("tsc --noEmit && jest");

  const before = readFileSync(join(dir, "test", "todo-server.agent.test.ts"), "utf8");
  const second = cli(dir, ["init", "--server", "node server.mjs"]);
  expect(second.status).toBe(0);
  expect(second.output).not.toMatch(/created|overwritten|updated/);
  expect(readFileSync(join(dir, "test", "todo-server.agent.test.ts"), "utf8")).toBe(before);

  // The project's own test script (npm test): type check, then the tests.
  const run = testScriptRun(dir, script);
  expect(run.output).toContain("2 passed");
  expect(run.status).toBe(0);
  // A type error the preset alone would run through (it transpiles only) stops the script.
  const direct = join(dir, "test", "todo-server.direct.test.ts");
  writeFileSync(direct, `${readFileSync(direct, "utf8")}\nconst wrong: number = "not a number";\n`);
  const broken = testScriptRun(dir, script);
  expect(broken.status).not.toBe(0);
  expect(broken.output).toMatch(/todo-server\.direct\.test\.ts\(\d+,\d+\): error TS2322/);
  expect(broken.output).not.toContain("passed");
  const transpiled = runJest(dir, {
    args: ["test/todo-server.direct.test.ts"],
    timeoutMs: 240_000,
  });
  expect(transpiled.output).toContain("1 passed");
});

/** Runs `script` as npm runs a package's script: in a shell, node_modules/.bin on PATH. */
function testScriptRun(dir: string, script: string): { status: number | null; output: string } {
  const run = spawnSync("sh", ["-c", script], {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      M3_RUN_DIR: "",
      M3_PROVIDER: "",
      M3_RUN_ID: "",
      M3_SCRIPTED_PROVIDER: "",
      FORCE_COLOR: "0",
      PATH: `${join(dir, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    },
    timeout: 240_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test("init never overwrites a file of the user's without being told to", () => {
  const dir = serverProject();
  dirs.push(dir);
  writeFileSync(join(dir, "jest.config.js"), "module.exports = { verbose: true };\n");
  const kept = cli(dir, ["init", "--server", "node server.mjs"]);
  expect(kept.status).toBe(0);
  expect(kept.output).toContain('kept        jest.config.js  (add preset: "jest-m3" to it)');
  expect(readFileSync(join(dir, "jest.config.js"), "utf8")).toBe(
    "module.exports = { verbose: true };\n",
  );
  const forced = cli(dir, ["init", "--server", "node server.mjs", "--force"]);
  expect(forced.output).toContain("overwritten jest.config.js");
  expect(readFileSync(join(dir, "jest.config.js"), "utf8")).toContain('preset: "jest-m3"');
});

test("init without a server command says what it needs", () => {
  const dir = serverProject();
  dirs.push(dir);
  const run = cli(dir, ["init"]);
  expect(run.status).toBe(2);
  expect(run.output).toContain('--server "<command>" is required');
});

test("doctor: versions, providers and every installed harness's readiness, on one screen", async () => {
  // Two projects, one bare and one after init, each its own HOME: their doctors (seconds
  // each, mostly waiting for every harness's agent to answer) run side by side.
  const dir = serverProject();
  const initialized = serverProject();
  dirs.push(dir, initialized);
  expect(cli(initialized, ["init", "--server", "node server.mjs"]).status).toBe(0);
  const [bare, ready] = await Promise.all([
    // Without a scripted model or a login, the harnesses are not ready: reasons and fixes.
    cliAsync(dir, ["doctor"], { HOME: dir, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" }),
    cliAsync(initialized, ["doctor"], { HOME: initialized }),
  ]);
  expect(bare.status).toBe(1);
  expect(bare.output).toMatch(/node \d+\.\d+\.\d+ +jest 30\.\d+\.\d+ +jest-m3 \d/);
  expect(bare.output).toContain("none configured: agent tests use each harness's own login");
  expect(bare.output).toMatch(/✗ codex 0\.171\.0 .*NOT ready/);
  expect(bare.output).toContain(
    "fix: sign in with the agent's own login, set OPENAI_API_KEY, or configure a scriptedModel in m3.config.json (offline)",
  );
  expect(bare.output).toContain(
    'no Jest configuration with preset "jest-m3" — fix: npx jest-m3 init',
  );
  expect(bare.output.trim().split("\n").length).toBeLessThanOrEqual(50);

  expect(ready.output).toContain("scripted model (offline) from");
  expect(ready.output).toMatch(/✓ codex 0\.171\.0 .*: ready/);
  // Every published harness is probed, the slow-starting ones too (Kilo Code, Copilot, Pi).
  expect(ready.output).toMatch(/✓ kilo 7\.7\.7 .*: ready/);
  expect(ready.output).toMatch(/✓ copilot 1\.0\.102 .*: ready/);
  expect(ready.output).toMatch(/✓ pi 1\.6\.0 .*: ready/);
  expect(ready.output).toMatch(/✓ qwen-code 0\.24\.4 .*: ready/);
  expect(ready.output).toContain("All set.");
  expect(ready.status).toBe(0);
});
