// Scale (issue #20): N seed sessions (Codex, two turns, one quote each, scripted model) as N
// test files of one project, run by `jest` on 2 workers, for N = 1, 2, 4, 8. Printed per N:
// the wall time, the throughput, the peak of the summed RSS of Jest and every process below
// it (sampled every 50 ms), and the cost of the sessions added since the previous N (wall
// and peak memory per added session): a cost that grows linearly shows the same figure at
// every step. A least-squares line over the four runs gives the per-session slope and how
// well a line fits (R²). Every session checks both replies, the wire calls and the server's
// own call log.
//
// Run on its own: `npx tsx bench/scale.ts [harness]` (after `npm run build`; default codex).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expectPassed, makeProject, MB, runJest, sessionTimes, SHIPPING } from "./jest-project";

const COUNTS = [1, 2, 4, 8] as const;
const MODELS: Record<string, string> = {
  codex: "gpt-5.5",
  "claude-code": "claude-sonnet-5-5",
  gemini: "gemini-scripted",
  opencode: "scripted-model",
};

function sessionFile(harness: string, index: number): string {
  return `import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

test("seed session ${index}", async () => {
  const log = join(mkdtempSync(join(__dirname, "calls-")), "calls.jsonl");
  const server: StdioServer = {
    name: "shipping",
    command: process.execPath,
    args: [${JSON.stringify(join(SHIPPING, "shipping-server.mjs"))}],
    env: { SHIPPING_CALL_LOG: log },
  };
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: ${JSON.stringify(harness)}, models: [${JSON.stringify(MODELS[harness])}] }]);
  const session = agent!.session({ server, tools: ["shipping:shipping_quote"], timeout: 120_000 });
  let first, second;
  {
    await using open = await session.open();
    first = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
    second = await open.send("Call shipping_quote once for weight_kg 3 in zone regional.");
  }
  expect(first.response?.text).toContain("9 USD");
  expect(second.response?.text).toContain("15.5");
  expect(session.result).toHaveToolCall("shipping_quote", { turn: first, status: "success", count: 1 });
  expect(session.result).toHaveToolCall("shipping_quote", { turn: second, status: "success", count: 1 });
  expect(readFileSync(log, "utf8").trim().split("\\n")).toHaveLength(2);
});
`;
}

/** The least-squares line through (x, y): slope, intercept and R². */
function fit(points: ReadonlyArray<readonly [number, number]>): {
  slope: number;
  intercept: number;
  r2: number;
} {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const total = points.reduce((sum, [, y]) => sum + (y - my) ** 2, 0);
  const residual = points.reduce((sum, [x, y]) => sum + (y - (intercept + slope * x)) ** 2, 0);
  return { slope, intercept, r2: total === 0 ? 1 : 1 - residual / total };
}

export async function benchScale({ harness = "codex" } = {}): Promise<void> {
  if (!MODELS[harness]) throw new Error(`no model for harness ${harness}`);
  const rows: Array<{ count: number; wall: number; peak: number; sessions: number }> = [];
  for (const count of COUNTS) {
    const files: Record<string, string> = {
      "jest.config.js": 'module.exports = { preset: "jest-m3" };\n',
      "tsconfig.json": readFileSync(join(SHIPPING, "tsconfig.json"), "utf8"),
      "model-script.json": readFileSync(join(SHIPPING, "model-script.json"), "utf8"),
      "m3.config.json": JSON.stringify({
        harnesses: [harness],
        scriptedModel: { script: "model-script.json", env: {} },
      }),
    };
    for (let index = 1; index <= count; index++) {
      files[`session-${index}.test.ts`] = sessionFile(harness, index);
    }
    const dir = makeProject("scale", files);
    try {
      const run = await runJest(dir, ["--maxWorkers=2"], { sampleMs: 50, timeoutMs: 900_000 });
      expectPassed(run, count, `${count} session(s)`);
      const sessions = sessionTimes(dir);
      if (sessions.length !== count) throw new Error(`${sessions.length} sessions, not ${count}`);
      rows.push({
        count,
        wall: run.wallMs,
        peak: run.peakTreeRss,
        sessions: sessions.reduce((sum, one) => sum + one, 0),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    `\nscale: N two-turn ${harness} seed sessions as N test files, one jest run on 2 workers each (scripted model)`,
  );
  console.log(
    "      N   wall ms  sessions/min  peak tree RSS MB  sum of sessions ms  per session ms  per added session: wall ms  peak MB",
  );
  rows.forEach((row, index) => {
    const previous = rows[index - 1];
    const added = previous
      ? `${((row.wall - previous.wall) / (row.count - previous.count)).toFixed(0).padStart(10)}  ${((row.peak - previous.peak) / MB / (row.count - previous.count)).toFixed(1).padStart(7)}`
      : "         —        —";
    console.log(
      `  ${String(row.count).padStart(5)}  ${row.wall.toFixed(0).padStart(8)}  ${((row.count / row.wall) * 60_000).toFixed(1).padStart(12)}  ${(row.peak / MB).toFixed(0).padStart(16)}  ${row.sessions.toFixed(0).padStart(18)}  ${(row.sessions / row.count).toFixed(0).padStart(14)}                 ${added}`,
    );
  });
  const wall = fit(rows.map((row) => [row.count, row.wall] as const));
  const peak = fit(rows.map((row) => [row.count, row.peak / MB] as const));
  console.log(
    `  least squares over N = ${COUNTS.join(", ")}: wall ${wall.intercept.toFixed(0)} ms + ${wall.slope.toFixed(0)} ms per session (R² ${wall.r2.toFixed(3)}); peak RSS ${peak.intercept.toFixed(0)} MB + ${peak.slope.toFixed(1)} MB per session (R² ${peak.r2.toFixed(3)})`,
  );
  // Two workers and sessions that wait on a model: N sessions in one run must go faster
  // than one at a time.
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const gain = last.count / last.wall / (first.count / first.wall);
  console.log(
    `  scale: sessions/min at N = ${last.count} over N = ${first.count}: ${gain.toFixed(2)}×; target ≥ 2×: ${gain >= 2 ? "met" : "NOT met"}`,
  );
  console.log(
    "  every session: both replies, one successful wire call per turn, and two lines in the server's own call log",
  );
}

if (require.main === module) {
  benchScale({ harness: process.argv[2] ?? "codex" }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
