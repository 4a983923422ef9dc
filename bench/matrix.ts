// The matrix moonshot (issue 36): the examples' matrix test (examples/shipping/matrix.test.ts:
// one quote in one turn, `trials()`) on every agent the project supports (the examples'
// m3.config.json: Codex, Claude Code, Gemini CLI, OpenCode, Pi, Kilo Code, Copilot, Qwen
// Code), 3 trials each, on the scripted model, as one whole `jest` run split in two shards
// (`--shard=1/2` and `--shard=2/2`, one worker each) that run at the same time on this
// machine and are merged with `jest-m3 merge-reports`, as docs/ci.md's sharding shows.
// Jest shards files, not tests, so the project holds the example's test once per agent,
// each file limited to its agent. Printed: each shard's wall time, the sum of the 24
// sessions' own time (created to closed, as each kit recorded it), the slower shard's
// wall over that sum, and the target (the slower shard under 2 minutes), met or not. The
// merged report is the ground truth that every agent's test passed with 3 trials.
//
// Run on its own: `npx tsx bench/matrix.ts` (after `npm run build`).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeProject, REPO, runFolders, runJest, sessionTimes, SHIPPING } from "./jest-project";

const TRIALS = 3;
const SHARDS = 2;
/** The slower shard's wall time must stay under this (issue 36). */
const TARGET_MS = 120_000;

interface AgentEntry {
  readonly harness: string;
  readonly models: readonly string[];
  readonly trials?: number;
}

/** The example's own test, limited to the agents of one harness (a file per agent). */
function agentFile(example: string, harness: string): string {
  const from =
    'import { MCPTestKit, describeAgents, expect, trials, type StdioServer } from "jest-m3";';
  if (!example.includes(from)) {
    throw new Error(
      `examples/shipping/matrix.test.ts no longer imports ${from}: update bench/matrix.ts`,
    );
  }
  const local = `import { MCPTestKit, agents, expect, trials, type MatrixAgent, type StdioServer } from "jest-m3";

// This file's agents only: Jest shards a run by files.
function describeAgents(name: string, body: (agent: MatrixAgent) => void): void {
  for (const agent of agents().filter((one) => one.harness === ${JSON.stringify(harness)})) {
    describe(\`\${name} [\${agent.label}]\`, () => body(agent));
  }
}`;
  return example.replace(from, local);
}

/** Throws, with the output, unless a shard's run passed. */
function expectShardPassed(status: number | null, output: string, shard: number): void {
  if (status !== 0 || !/Tests:\s+\d+ passed, \d+ total/.test(output)) {
    throw new Error(`shard ${shard}/${SHARDS} failed:\n${output.slice(-3000)}`);
  }
}

export async function benchMatrix(): Promise<void> {
  const config = JSON.parse(readFileSync(join(SHIPPING, "m3.config.json"), "utf8")) as {
    agents: AgentEntry[];
  };
  const agents = config.agents.map((agent) => ({ ...agent, trials: TRIALS }));
  const sessions = agents.reduce((total, agent) => total + agent.models.length * TRIALS, 0);
  const example = readFileSync(join(SHIPPING, "matrix.test.ts"), "utf8");
  const files: Record<string, string> = {
    "jest.config.js": 'module.exports = { preset: "jest-m3" };\n',
    "tsconfig.json": readFileSync(join(SHIPPING, "tsconfig.json"), "utf8"),
    "model-script.json": readFileSync(join(SHIPPING, "model-script.json"), "utf8"),
    "shipping-server.mjs": readFileSync(join(SHIPPING, "shipping-server.mjs"), "utf8"),
    "m3.config.json": JSON.stringify({ ...config, agents }),
  };
  for (const agent of agents) {
    files[`matrix-${agent.harness}.test.ts`] = agentFile(example, agent.harness);
  }
  const dir = makeProject("matrix", files);
  try {
    // Both shards at once, one worker each: the two cores, one session on each.
    const started = performance.now();
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, (_, index) =>
        runJest(dir, [`--shard=${index + 1}/${SHARDS}`, "--maxWorkers=1"], {
          timeoutMs: 900_000,
        }),
      ),
    );
    const wall = performance.now() - started;
    // The figures first, so that a failed check below still shows them.
    console.log(
      `\nmatrix: the examples' matrix test, ${agents.length} agents (${agents.map((agent) => agent.harness).join(", ")}) × ${TRIALS} trials, scripted model, one jest run in ${SHARDS} shards at once (one worker each), merged`,
    );
    shards.forEach((run, index) => {
      // Jest's own line per file: `PASS matrix-codex.test.ts (12.3 s)`.
      const files = [
        ...run.output.matchAll(
          /^(?:PASS|FAIL)\s+(?:\.\/)?matrix-(\S+)\.test\.ts(?: \(([\d.]+) s\))?/gm,
        ),
      ]
        .map((match) => `${match[1]}${match[2] ? ` ${match[2]} s` : ""}`)
        .join(", ");
      console.log(
        `  shard ${index + 1}/${SHARDS}  wall ${(run.wallMs / 1000).toFixed(1).padStart(6)} s  (${files}; ${/^Tests:.*$/m.exec(run.output)?.[0] ?? "no Tests: line"})`,
      );
    });
    shards.forEach((run, index) => expectShardPassed(run.status, run.output, index + 1));
    const shardFolders = runFolders(dir);
    if (shardFolders.length !== SHARDS) {
      throw new Error(`${shardFolders.length} run folders after ${SHARDS} shards`);
    }
    const times = sessionTimes(dir);
    if (times.length !== sessions) {
      throw new Error(`${times.length} sessions recorded, not ${sessions}`);
    }
    const merge = spawnSync(
      process.execPath,
      [
        join(REPO, "packages", "jest-m3", "bin", "jest-m3.js"),
        "merge-reports",
        ...shardFolders.map((run) => join(".m3", "runs", run)),
      ],
      { cwd: dir, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
    );
    if (merge.status !== 0) {
      throw new Error(`merge-reports exited ${merge.status}:\n${merge.stdout}${merge.stderr}`);
    }
    const merged = runFolders(dir).find((run) => !shardFolders.includes(run));
    // report.json: the run's totals and, per test and agent, its trials.
    const report = JSON.parse(
      readFileSync(join(dir, ".m3", "runs", merged!, "report.json"), "utf8"),
    ) as {
      tests: { total: number; passed: number };
      stats: Array<{ agent: { harness: string }; trials: { run: number; passed: number } | null }>;
    };
    const passed = report.tests.passed;
    const trialsPassed = report.stats.reduce((total, row) => total + (row.trials?.passed ?? 0), 0);
    const harnesses = new Set(report.stats.map((row) => row.agent.harness));
    if (
      passed !== agents.length ||
      report.tests.total !== agents.length ||
      trialsPassed !== sessions ||
      harnesses.size !== agents.length
    ) {
      throw new Error(
        `the merged report has ${passed} of ${report.tests.total} tests, ${trialsPassed} trials passed and ${harnesses.size} agents, expected ${agents.length}, ${sessions} and ${agents.length}`,
      );
    }
    const sum = times.reduce((total, one) => total + one, 0);
    const slower = Math.max(...shards.map((run) => run.wallMs));
    console.log(
      `  both shards ${(wall / 1000).toFixed(1)} s wall; the sum of the ${sessions} sessions' own time ${(sum / 1000).toFixed(1)} s; slower shard / sum of sessions ${(slower / sum).toFixed(3)}×`,
    );
    console.log(
      `  merged (jest-m3 merge-reports): ${passed} of ${report.tests.total} tests passed, ${trialsPassed} trials passed, on ${harnesses.size} agents`,
    );
    console.log(
      `  matrix: slower shard ${(slower / 1000).toFixed(1)} s; target < ${TARGET_MS / 1000} s: ${slower < TARGET_MS ? "met" : "NOT met"}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchMatrix().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
