// Issue #16's benchmark: the seed's matrix test (examples/shipping/matrix.test.ts: one quote
// in one turn, `trials()`) over 4 agents (Codex, Claude Code, Gemini CLI, OpenCode, all real
// binaries) × 3 trials on the scripted model, as whole `jest` runs with 1 and with 2
// workers. The project holds one file per agent (Jest runs files, not tests, in parallel),
// each the example's test for that agent. Every trial checks the wire evidence and the
// server's own call log (one line per call). Printed: each run's wall time, the sum of its
// 12 sessions' own time (created to closed, as each kit recorded it), and their ratio.
//
// Run on its own: `npx tsx bench/matrix.ts` (after `npm run build`).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expectPassed, makeProject, runJest, sessionTimes, SHIPPING } from "./jest-project";

const AGENTS = [
  { harness: "codex", models: ["gpt-5.5"], trials: 3 },
  { harness: "claude-code", models: ["claude-sonnet-5-5"], trials: 3 },
  { harness: "gemini", models: ["gemini-scripted"], trials: 3 },
  { harness: "opencode", models: ["scripted-model"], trials: 3 },
] as const;

function agentFile(harness: string): string {
  return `import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, agents, expect, trials, type StdioServer } from "jest-m3";

for (const agent of agents().filter((one) => one.harness === ${JSON.stringify(harness)})) {
  describe(\`shipping quotes [\${agent.label}]\`, () => {
    test("one quote per turn, in every trial", async () => {
      await trials(agent, async () => {
        const log = join(mkdtempSync(join(__dirname, "calls-")), "calls.jsonl");
        const server: StdioServer = {
          name: "shipping",
          command: process.execPath,
          args: [${JSON.stringify(join(SHIPPING, "shipping-server.mjs"))}],
          env: { SHIPPING_CALL_LOG: log },
        };
        await using kit = new MCPTestKit({ env: {} });
        const [selection] = kit.agents([agent.selection]);
        const session = selection!.session({ server, tools: ["shipping:shipping_quote"], timeout: 120_000 });
        let turn;
        {
          await using open = await session.open();
          turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
        }
        expect(session.result).toHaveToolCall("shipping_quote", {
          turn,
          server: "shipping",
          status: "success",
          count: 1,
        });
        expect(readFileSync(log, "utf8").trim().split("\\n")).toHaveLength(1);
      });
    });
  });
}
`;
}

export async function benchMatrix(): Promise<void> {
  const files: Record<string, string> = {
    "jest.config.js": 'module.exports = { preset: "jest-m3" };\n',
    "tsconfig.json": readFileSync(join(SHIPPING, "tsconfig.json"), "utf8"),
    "model-script.json": readFileSync(join(SHIPPING, "model-script.json"), "utf8"),
    "m3.config.json": JSON.stringify({
      scriptedModel: { script: "model-script.json", env: {} },
      agents: AGENTS,
    }),
  };
  for (const agent of AGENTS) files[`matrix-${agent.harness}.test.ts`] = agentFile(agent.harness);
  const results: Array<{ workers: number; wall: number; sessions: number[] }> = [];
  for (const workers of [1, 2]) {
    // A fresh project per run: nothing of the other run's cache or results.
    const dir = makeProject("matrix", files);
    try {
      const run = await runJest(dir, [`--maxWorkers=${workers}`], { timeoutMs: 900_000 });
      expectPassed(run, AGENTS.length, `matrix on ${workers} worker(s)`);
      const sessions = sessionTimes(dir);
      if (sessions.length !== 12) throw new Error(`${sessions.length} sessions, not 12`);
      results.push({ workers, wall: run.wallMs, sessions });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    "\nmatrix: the seed's matrix test, 4 agents (codex, claude-code, gemini, opencode) × 3 trials, scripted model, whole jest runs (one file per agent)",
  );
  for (const { workers, wall, sessions } of results) {
    const sum = sessions.reduce((total, one) => total + one, 0);
    console.log(
      `  ${workers} worker${workers > 1 ? "s" : " "}  wall ${wall.toFixed(0).padStart(6)} ms  sum of its 12 sessions ${sum.toFixed(0).padStart(6)} ms  wall / sum ${(wall / sum).toFixed(3)}×`,
    );
  }
  const [one, two] = results;
  if (one && two) {
    const sumOne = one.sessions.reduce((total, t) => total + t, 0);
    console.log(
      `  2 workers / 1 worker: ${(two.wall / one.wall).toFixed(3)}× the wall time; 2 workers / the 1-worker run's sum of sessions: ${(two.wall / sumOne).toFixed(3)}×`,
    );
  }
  console.log(
    "  every trial: the wire call checked (one successful shipping_quote in its turn) and the server's own call log (one line)",
  );
}

if (require.main === module) {
  benchMatrix().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
