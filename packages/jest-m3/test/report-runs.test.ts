// Real runs of a user's project (child Jest, preset "jest-m3", a real MCP server built on the
// MCP SDK, the test harness making real MCP calls, the run's scripted model as provider):
// per-agent statistics in report.json, the end-of-run table and the HTML report; the
// provider of each session; tool catalogs in the history; `jest-m3 diff` between real runs;
// and `jest --shard` blobs merged into the same report and history entry as an unsharded run.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonReport } from "../dist/report/blob";
import { queryRows } from "../dist/store/engine";
import { readHistory } from "../dist/store/history";
import { runCli as cli } from "./support/cli";
import {
  makeUserProject,
  REPO,
  removeTempDir,
  runJest,
  TEST_HARNESS as testHarness,
} from "./support/user-project";

/** The MCP SDK's server modules, as a user's server requires them. */
const SDK_SERVER = join(
  REPO,
  "node_modules",
  "@modelcontextprotocol",
  "sdk",
  "dist",
  "cjs",
  "server",
);
const SDK = join(SDK_SERVER, "mcp.js");
const STDIO = join(SDK_SERVER, "stdio.js");
const SECRET = "sk-report-runs-secret-0123456789";

// A real MCP server whose catalog depends on CATALOG (v1 or v2), as a server evolves.
const SERVER = `
const { McpServer } = require(${JSON.stringify(SDK)});
const { StdioServerTransport } = require(${JSON.stringify(STDIO)});
const { z } = require(${JSON.stringify(join(REPO, "node_modules", "zod"))});
const v2 = process.env.CATALOG === "v2";
const server = new McpServer({ name: "depot", version: "1.0.0" });
const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }] });
server.tool("quote", v2 ? { weight_kg: z.number(), express: z.boolean() } : { weight_kg: z.number() },
  async (args) => text({ price: args.weight_kg * 3 }));
if (!v2) server.tool("label", { id: z.string() }, async (args) => text({ label: args.id }));
if (v2) server.tool("track", { id: z.string() }, async (args) => text({ at: "depot", id: args.id }));
server.connect(new StdioServerTransport());
`;

const session = (model: string, lines: string) => `{
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: [${JSON.stringify(model)}] }]);
    const session = agent!.session({ server: depot });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send(${JSON.stringify(lines)});
    }
    return { result: session.result, turn };
  }`;

const header = `
import { join } from "node:path";
import { MCPTestKit, expect, trials } from "jest-m3";
import { testHarness } from ${JSON.stringify(testHarness)};
const depot = { name: "depot", command: process.execPath, args: [join(__dirname, "server.cjs")], env: { CATALOG: process.env.CATALOG ?? "v1" } };
`;

// Four files, so that two shards get two each. "labels" fails when FLIP is set; the
// quote test runs 3 trials on each of two models, one of m2's failing.
const FILES: Record<string, string> = {
  "server.cjs": SERVER,
  "m3.config.json": JSON.stringify({ scriptedModel: { script: "script.json" } }),
  "script.json": JSON.stringify({
    rules: [
      { name: "unused", when: { user: { regex: "never asked" } }, steps: [{ reply: "unused" }] },
    ],
  }),
  "a-quotes.test.ts": `${header}
for (const model of ["m1", "m2"]) {
  test("quotes on " + model, async () => {
    await trials({ harness: "test", model, version: "1.0.0", trials: 3, options: {}, label: model, selection: { harness: "test", models: [model] } }, async (trial) => {
      const { result, turn } = await (async () => ${session("MODEL", 'list depot\ncall depot:quote {"weight_kg":2}\nreply ok')})();
      expect(result).toHaveToolCall("quote", { turn, server: "depot", status: "success" });
      if (model === "m2" && trial === 2) throw new Error("m2 trial 2 fails on purpose");
    }, { atLeast: 2 });
  });
}
`.replace(/"MODEL"/g, "model"),
  "b-labels.test.ts": `${header}
test("labels", async () => {
  const call = process.env.FLIP ? "call depot:track {\\"id\\":\\"x\\"}" : "call depot:label {\\"id\\":\\"x\\"}";
  const { result } = await (async () => ${session("m1", "list depot\nCALL\nreply done")})();
  expect(result).toHaveToolCall(process.env.FLIP ? "label" : "label", { server: "depot" });
});
`.replace('"list depot\\nCALL\\nreply done"', '"list depot\\n" + call + "\\nreply done"'),
  "c-plain.test.ts": `test("no agent", () => expect(1 + 1).toBe(2));\n`,
  "d-two-turns.test.ts": `${header}
test("two turns", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m1"] }]);
  const session = agent!.session({ server: depot });
  {
    await using open = await session.open();
    await open.send('list depot\\ncall depot:quote {"weight_kg":1}\\nreply one');
    await open.send('call depot:quote {"weight_kg":4}\\ncall depot:quote {"weight_kg":5}\\nreply two');
  }
  expect(session.result).toHaveToolCall("quote", { count: 3 });
});
`,
};

let project: string | undefined;
afterAll(() => removeTempDir(project));

const runFolders = (dir: string): string[] => readdirSync(join(dir, ".m3", "runs")).sort();
const readJson = (folder: string): JsonReport =>
  JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as JsonReport;

/** A report without what differs between any two runs: times, ids, the run's own data. */
function comparable(report: JsonReport): unknown {
  const drop = new Set([
    "runId",
    "run",
    "shards",
    "executionId",
    "sessionId",
    "durationMs",
    "latencyMs",
    "offsetMs",
    "afterMs",
    "turnLatencyMs",
    "baseUrl",
  ]);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !drop.has(key))
          .map(([key, item]) => [key, walk(item)]),
      );
    }
    // JSON-RPC messages carry ids and the server's process-specific text.
    return typeof value === "string" ? value.replace(/"id":\d+/g, '"id":0') : value;
  };
  const sorted = {
    ...report,
    sessions: [...report.sessions].sort((a, b) =>
      `${a.testName}${a.trial ?? 0}${a.model}`.localeCompare(
        `${b.testName}${b.trial ?? 0}${b.model}`,
      ),
    ),
    failedWithTranscripts: [],
  };
  return walk(sorted);
}

async function historyRows(dir: string, sql: string, runId: string): Promise<unknown[]> {
  const db = await readHistory(join(dir, ".m3", "history.sqlite"));
  try {
    return queryRows(db, sql, [runId]);
  } finally {
    db.close();
  }
}

test("stats, providers and catalogs of a real run; shards merge to the unsharded run; diff between real runs", async () => {
  project = makeUserProject(FILES);
  const env = { CATALOG: "v1", OPENAI_API_KEY: SECRET };

  // 1. The unsharded run.
  const whole = runJest(project, { env, timeoutMs: 180_000 });
  expect(whole.output).toContain("Tests:       5 passed, 5 total");
  const [wholeId] = runFolders(project);
  const wholeDir = join(project, ".m3", "runs", wholeId!);
  const report = readJson(wholeDir);

  // Per test and agent: trials, rate, interval, latency, calls.
  const row = (test: string, model: string) =>
    report.stats.find((entry) => entry.test.fullName === test && entry.agent.model === model)!;
  expect(row("quotes on m1", "m1")).toMatchObject({
    agent: { harness: "test", model: "m1", version: "1.0.0" },
    trials: { run: 3, passed: 3, rate: 1 },
    sessions: 3,
    turns: 3,
    toolCalls: { total: 3, perSession: { mean: 1, p50: 1, p95: 1, max: 1 } },
  });
  expect(row("quotes on m2", "m2").trials).toMatchObject({ run: 3, passed: 2 });
  expect(row("quotes on m2", "m2").trials.interval[0]).toBeCloseTo(0.208, 2);
  expect(row("quotes on m2", "m2").trials.interval[1]).toBeCloseTo(0.939, 2);
  const twoTurns = row("two turns", "m1");
  expect(twoTurns).toMatchObject({
    trials: { run: 1, passed: 1 },
    sessions: 1,
    turns: 2,
    toolCalls: { total: 3 },
  });
  expect(twoTurns.turnLatencyMs!.p50).toBeGreaterThan(0);
  expect(twoTurns.turnLatencyMs!.p95).toBeGreaterThanOrEqual(twoTurns.turnLatencyMs!.p50);
  expect(report.stats.some((entry) => entry.test.fullName === "no agent")).toBe(false);

  // The end-of-run table.
  expect(whole.output).toMatch(/jest-m3: per test and agent\n.*turn p50\/p95.*\n/);
  expect(whole.output).toMatch(/ {2}2\/3 +67% \(21%–94%\) .*test 1\.0\.0 · m2 +quotes on m2/);

  // Each session's provider: the run's scripted model, in the harness's dialect; no key.
  const provider = report.sessions[0]!.provider!;
  expect(provider).toMatchObject({ name: expect.any(String), dialect: "responses" });
  expect(provider.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  // The catalog the server listed, per session.
  expect(report.sessions.find((s) => s.testName === "labels")!.catalogs).toEqual([
    {
      server: "depot",
      tools: [
        { name: "label", schemaHash: expect.stringMatching(/^[0-9a-f]{16}$/) },
        { name: "quote", schemaHash: expect.stringMatching(/^[0-9a-f]{16}$/) },
      ],
    },
  ]);
  // The HTML report carries the statistics and providers it renders.
  const html = readFileSync(join(wholeDir, "report.html"), "utf8");
  expect(html).toContain('"turnLatencyMs":{"p50":');
  expect(html).toContain(`"provider":{"name":"${provider.name}"`);
  expect(html).toContain("Per agent");
  for (const file of ["report.json", "report.html", "blob.json"]) {
    expect(readFileSync(join(wholeDir, file), "utf8")).not.toContain(SECRET);
  }
  expect(readFileSync(join(project, ".m3", "history.sqlite")).includes(SECRET)).toBe(false);

  // 2. The same run as two shards, merged.
  const shards = [1, 2].map((index) => {
    const before = new Set(runFolders(project!));
    const run = runJest(project!, { env, args: [`--shard=${index}/2`], timeoutMs: 180_000 });
    expect(run.output).toContain(`shard ${index}/2: its blob is`);
    expect(run.output).not.toContain("run recorded in");
    return runFolders(project!).find((id) => !before.has(id))!;
  });
  const merged = await cli(
    project,
    "merge-reports",
    ...shards.map((id) => join(".m3", "runs", id)),
  );
  expect(merged.err).toBe("");
  expect(merged.code).toBe(0);
  expect(merged.out).toContain("Merged 2 shard(s) into run");
  const mergedId = /into run (\S+):/.exec(merged.out)![1]!;
  const mergedReport = readJson(join(project, ".m3", "runs", mergedId));
  expect(mergedReport.shards).toEqual([
    { runId: shards[0], index: 1 },
    { runId: shards[1], index: 2 },
  ]);
  expect(comparable(mergedReport)).toEqual(comparable(report));
  // One history entry per run, the same rows.
  for (const sql of [
    "SELECT test_id, file, full_name, verdict FROM tests WHERE run_id = ? ORDER BY test_id",
    "SELECT test_id, harness, model, version, run, passed, rate, ci_low, ci_high, sessions, turns, calls FROM trials WHERE run_id = ? ORDER BY test_id, model",
    "SELECT server, tool, schema_hash FROM catalogs WHERE run_id = ? ORDER BY server, tool",
    "SELECT s.test_id, c.turn, c.position, c.server, c.tool, c.arguments, c.status FROM calls c JOIN sessions s USING (run_id, execution_id) WHERE c.run_id = ? ORDER BY 1, 5, 6, 2, 3",
    "SELECT tests, passed, failed, skipped, sessions, calls, success FROM runs WHERE id = ?",
  ]) {
    expect(await historyRows(project, sql, mergedId)).toEqual(
      await historyRows(project, sql, wholeId!),
    );
  }
  // Merged and unsharded runs do not differ.
  const same = await cli(project, "diff", "--baseline", wholeId!, mergedId);
  expect(same.out).toContain("No regressions.");
  expect(same.out).not.toContain("Tests that flipped");
  expect(same.out).not.toContain("Tool catalogs");
  expect(same.code).toBe(0);

  // 3. The server changed its catalog and a test now fails: diff says what and exits 1.
  const changed = runJest(project, {
    env: { ...env, CATALOG: "v2", FLIP: "1" },
    timeoutMs: 180_000,
  });
  expect(changed.status).toBe(1);
  const diff = await cli(project, "diff", "--baseline", "last-green");
  expect(diff.code).toBe(1);
  expect(diff.out).toContain("passed → failed  labels  (b-labels.test.ts)");
  expect(diff.out).toContain("depot: + track (added)");
  expect(diff.out).toContain("depot: - label (removed)");
  expect(diff.out).toContain("depot: ~ quote (schema changed)");
  expect(diff.out).toContain("New calls (1)\n  depot:track ×1  labels");
  expect(diff.out).toContain("Vanished calls (1)\n  depot:label (was ×1)  labels");
});

// Real agents: Codex and Claude Code on the run's scripted model, each in its own dialect.
// Their sessions name the provider that served them, and the catalog comes from the
// agent's own tools/list on the wire.
let agentProject: string | undefined;
afterAll(() => removeTempDir(agentProject));

test("real agents: each session's provider and its server's catalog in the report and the history", async () => {
  const shipping = `{ name: "shipping", command: process.execPath, args: [${JSON.stringify(join(REPO, "examples", "shipping", "shipping-server.mjs"))}] }`;
  const agentTest = (harness: string, model: string) => `
test(${JSON.stringify(`quotes on ${harness}`)}, async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: ${JSON.stringify(harness)}, models: [${JSON.stringify(model)}] }]);
  const result = await agent!.run("Call shipping_quote once for weight_kg 2 in zone local.", { server: ${shipping}, timeout: 120_000 });
  expect(result).toHaveToolCall("shipping_quote", { server: "shipping", status: "success" });
});
`;
  agentProject = makeUserProject({
    "m3.config.json": JSON.stringify({ scriptedModel: { script: "script.json" } }),
    "script.json": readFileSync(join(REPO, "examples", "shipping", "model-script.json"), "utf8"),
    "agents.test.ts": `import { MCPTestKit, expect } from "jest-m3";
${agentTest("codex", "gpt-5.5")}
${agentTest("claude-code", "claude-sonnet-5-5")}`,
  });
  const run = runJest(agentProject, { env: { OPENAI_API_KEY: SECRET }, timeoutMs: 300_000 });
  expect(run.output).toContain("Tests:       2 passed, 2 total");
  const [id] = runFolders(agentProject);
  const report = readJson(join(agentProject, ".m3", "runs", id!));
  const byHarness = new Map(report.sessions.map((s) => [s.harness, s]));
  expect(byHarness.get("codex")!.provider).toMatchObject({ dialect: "responses" });
  expect(byHarness.get("codex")!.provider!.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  expect(byHarness.get("claude-code")!.provider).toMatchObject({ dialect: "anthropic-messages" });
  expect(byHarness.get("claude-code")!.provider!.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  for (const session of report.sessions) {
    const tools = session.catalogs!.find((c) => c.server === "shipping")!.tools.map((t) => t.name);
    expect(tools).toContain("shipping_quote");
  }
  expect(
    report.stats.map((row) => [row.agent.harness, row.trials.passed, row.toolCalls.total]).sort(),
  ).toEqual([
    ["claude-code", 1, 1],
    ["codex", 1, 1],
  ]);
  const rows = await historyRows(
    agentProject,
    "SELECT harness, provider_dialect FROM sessions WHERE run_id = ? ORDER BY harness",
    id!,
  );
  expect(rows).toEqual([
    { harness: "claude-code", provider_dialect: "anthropic-messages" },
    { harness: "codex", provider_dialect: "responses" },
  ]);
  expect(readFileSync(join(agentProject, ".m3", "runs", id!, "report.html"), "utf8")).not.toContain(
    SECRET,
  );
}, 320_000);
