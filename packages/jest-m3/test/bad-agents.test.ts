// A run's matrix is checked before any test: duplicate agents, a model name an agent would
// read as a flag or as a second line, and options its harness refuses (a misspelt key,
// `warm` with `builtinTools`, `acp` without `command`) stop the run in global setup, with
// the field and the fix, and no agent started. Before, they passed global setup and failed
// again in every test.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidAgentList, loadConfig, parseAgentsVariable } from "jest-m3";
import globalSetup from "../dist/main/run-setup";
import { SHARED_SERVICES } from "../dist/main/shared-services";

// Under the repository's node_modules, so the project resolves the installed harness packages.
const cache = join(__dirname, "..", "..", "..", "node_modules", ".cache");
let project: string;
const savedEnv = { ...process.env };

beforeEach(() => {
  mkdirSync(cache, { recursive: true });
  project = mkdtempSync(join(cache, "m3-bad-agents-"));
});

afterEach(async () => {
  await Promise.all(SHARED_SERVICES.splice(0).map((stop) => stop()));
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  jest.restoreAllMocks();
  rmSync(project, { recursive: true, force: true });
});

function configure(agents: unknown): void {
  writeFileSync(join(project, "m3.config.json"), JSON.stringify({ resultsDir: ".m3", agents }));
}

const refusal = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAgentList);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("the matrix's own schema", () => {
  test("a model name that is a flag or holds a line break is refused, saying why", () => {
    configure([{ harness: "codex", models: ["gpt-5.5", "--yolo"] }]);
    expect(() => loadConfig(project)).toThrow(
      `"agents" Agent list (${join(project, "m3.config.json")}): agents[0].models[1] must be a model name, got "--yolo": a name starting with "-" would reach the agent as a command-line flag. Write the model's own name (e.g. "gpt-5.5").`,
    );
    configure([{ harness: "codex", models: ["gpt-5.5\nsandbox_mode = 'danger-full-access'"] }]);
    expect(() => loadConfig(project)).toThrow(
      /agents\[0\]\.models\[0\] must be a model name, got "gpt-5\.5\\nsandbox_mode = 'danger-full-access'": it holds a line break or another control character.*If the name comes from a file or a variable, trim it\./,
    );
    expect(refusal(() => parseAgentsVariable("codex=--yolo"))).toMatch(
      /item "codex=--yolo" is not "harness=model"/,
    );
  });

  test("the same harness and model twice is refused, pointing at trials", () => {
    configure([
      { harness: "codex", models: ["a", "b"] },
      { harness: "codex", models: ["b"], options: { sandbox: "workspace-write" } },
    ]);
    expect(() => loadConfig(project)).toThrow(
      'agents[1].models[0] repeats harness "codex" with model "b" (as agents[0].models[1]): each agent runs once per test, and their tests would have the same name. Give it once; to run it more often, give it trials (e.g. "trials": 3).',
    );
    expect(refusal(() => parseAgentsVariable("codex=a*3,claude-code=a,codex=a"))).toBe(
      'Agent list (M3_AGENTS): item "codex=a" repeats "codex=a*3": each agent runs once per test, and their tests would have the same name. Give it once; to run it more often, give it trials ("codex=a*3").',
    );
  });
});

describe("global setup checks each configured agent's options through its harness", () => {
  /** An executable that only records that it ran: proof of whether an agent was started. */
  function tripwire(name: string): { path: string; ran: () => boolean } {
    const marker = join(project, `${name}.ran`);
    const path = join(project, name);
    writeFileSync(path, `#!/bin/sh\necho "$@" >> "${marker}"\nexit 3\n`);
    chmodSync(path, 0o755);
    return { path, ran: () => existsSync(marker) };
  }

  function quietly(): void {
    jest.spyOn(console, "log").mockImplementation(() => undefined);
    jest.spyOn(console, "warn").mockImplementation(() => undefined);
  }

  test("refused options stop the run before any agent starts, each naming its field and fix", async () => {
    const codex = tripwire("codex-tripwire");
    const claude = tripwire("claude-tripwire");
    process.env.M3_CODEX_EXECUTABLE = codex.path;
    process.env.M3_CLAUDE_CODE_EXECUTABLE = claude.path;
    delete process.env.M3_AGENTS;
    configure([
      { harness: "codex", models: ["m"], options: { sandbx: "read-only" } },
      { harness: "claude-code", models: ["m"], options: { warm: true, builtinTools: ["Read"] } },
      { harness: "acp", models: ["m"] },
    ]);
    quietly();
    const error = await globalSetup({ rootDir: project }).then(
      () => null,
      (thrown: unknown) => thrown as Error,
    );
    const source = join(project, "m3.config.json");
    expect(error?.message.split("\n")).toEqual([
      "jest-m3: 3 agents of the run's matrix refused by their harnesses; no test was started.",
      expect.stringMatching(
        new RegExp(
          `^  - agents\\[0\\]\\.options\\.sandbx \\(codex\\): Codex harness option "sandbx" is unknown; the options are .*\\. Fix agents\\[0\\]\\.options\\.sandbx in ${source}\\.$`,
        ),
      ),
      expect.stringMatching(
        /^ {2}- agents\[1\]\.options\.\w+ \(claude-code\): Claude Code harness option "\w+" cannot be combined with builtinTools .* Fix agents\[1\]\.options\.\w+ in /,
      ),
      expect.stringMatching(
        /^ {2}- agents\[2\]\.options(\.command)? \(acp\): .*command.* Fix agents\[2\]\.options/,
      ),
    ]);
    // Nothing started: neither agent binary ran, and no run file was handed to workers.
    expect(codex.ran()).toBe(false);
    expect(claude.ran()).toBe(false);
    expect(existsSync(join(process.env.M3_RUN_DIR!, "run.json"))).toBe(false);
  });

  test("options the harness accepts pass, and are probed as configured (the tripwire sees it)", async () => {
    const codex = tripwire("codex-tripwire");
    process.env.M3_CODEX_EXECUTABLE = codex.path;
    delete process.env.M3_AGENTS;
    configure([{ harness: "codex", models: ["m"], options: { sandbox: "workspace-write" } }]);
    quietly();
    await expect(globalSetup({ rootDir: project })).resolves.toBeUndefined();
    // Readiness asked the executable for its version: the probe ran, with these options.
    expect(codex.ran()).toBe(true);
    expect(existsSync(join(process.env.M3_RUN_DIR!, "run.json"))).toBe(true);
  });
});
