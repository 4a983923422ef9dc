// A user's project: a folder with only `preset: "jest-m3"` in its Jest configuration, run
// by Jest as a child process, exactly as a user would run it.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  makeUserProject,
  REPO,
  runJest as runUserJest,
  SHIPPING_SERVER,
} from "./support/user-project";

const repo = REPO;
const shippingScript = SHIPPING_SERVER;
const testHarness = join(repo, "packages", "core", "dist", "testing.js");
const runJest = (dir: string) => runUserJest(dir, { timeoutMs: 120_000 });
const makeProject = makeUserProject;

const serverSpec = `{ name: "shipping", command: process.execPath, args: [${JSON.stringify(shippingScript)}] }`;

describe("a user's project with only the preset", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test("a direct test importing expect from jest-m3 passes, and the run leaves a report", () => {
    const dir = makeProject({
      "quote.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
test("quotes", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(${serverSpec});
  const result = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(result).toHaveStructuredContent({ amount: 9, currency: "USD" });
  await client.close();
  expect(client).toHaveToolCall("shipping_quote").withStatus("success").once();
});
`,
    });
    dirs.push(dir);
    const { status, output } = runJest(dir);
    expect(output).toContain("1 passed");
    expect(status).toBe(0);
    const runs = readdirSync(join(dir, ".m3", "runs"));
    expect(runs).toHaveLength(1);
    const report = JSON.parse(
      readFileSync(join(dir, ".m3", "runs", runs[0]!, "report.json"), "utf8"),
    );
    expect(report.tests).toEqual({ total: 1, passed: 1, failed: 0 });
  });

  test("a failing agent test prints the transcript: turns, prompts, replies, tool calls", () => {
    const dir = makeProject({
      "agent.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
import { testHarness } from ${JSON.stringify(testHarness)};
test("asks for the wrong zone", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
  const session = agent!.session({ server: ${serverSpec} });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send('call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\\nreply The quote is 9 USD.');
  }
  expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone: "regional" } });
});
`,
    });
    dirs.push(dir);
    const { status, output } = runJest(dir);
    expect(status).toBe(1);
    expect(output).toContain("asks for the wrong zone — what the agent did");
    expect(output).toContain("turn 1 [completed]");
    expect(output).toContain(`prompt: call shipping:shipping_quote {"weight_kg":2,"zone":"local"}`);
    expect(output).toContain(
      `tool call: shipping:shipping_quote {"weight_kg":2,"zone":"local"} → success (both evidence)`,
    );
    expect(output).toContain("reply: The quote is 9 USD.");
    expect(output).toContain(
      'Expected: at least 1 call(s) matching tool "shipping_quote", turn 1, arguments {"weight_kg":2,"zone":"regional"}',
    );
  });

  test("a process that outlived its kit is killed by the global teardown, named, and fails the run", () => {
    const dir = makeProject({
      "leak.test.ts": `
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
test("leaks a process into the run's ledger", () => {
  // Stands in for a relay whose harness died: a process a kit reported starting, still alive.
  const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  child.unref();
  const stat = readFileSync("/proc/" + child.pid + "/stat", "utf8");
  const startTicks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  appendFileSync(
    join(process.env.M3_RUN_DIR!, "processes", "leak.jsonl"),
    JSON.stringify({ pid: child.pid, label: "relay for shipping", command: "stdio-relay", startTicks, testName: "leaks" }) + "\\n",
  );
  appendFileSync(join(__dirname, "leaked.pid"), String(child.pid));
});
`,
    });
    dirs.push(dir);
    const { status, output } = runJest(dir);
    expect(status).not.toBe(0);
    expect(output).toContain(
      "1 process(es) started by the suite outlived their kit and were killed",
    );
    expect(output).toMatch(/relay for shipping \(pid \d+, stdio-relay\) from "leaks"/);
    const pid = Number(readFileSync(join(dir, "leaked.pid"), "utf8"));
    const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], {
      encoding: "utf8",
    }).stdout.trim();
    expect(state === "" || state.startsWith("Z")).toBe(true);
  });

  test("global setup probes each configured harness once; workers reuse the answer", () => {
    const harnessModule = `
const { appendFileSync } = require("node:fs");
const { join } = require("node:path");
const { defineHarness } = require("@jest-m3/core/harness");
module.exports = defineHarness({
  name: "counting",
  async readiness() {
    appendFileSync(join(__dirname, "probes.log"), process.pid + "\\n");
    const ready = { status: "ready" };
    return {
      ready: true,
      harness: { name: "counting", version: "1.0.0", executable: null },
      capabilities: { multiTurn: ready, toolPolicy: ready, wireEvidence: ready, reportedEvidence: ready,
        cancellation: ready, approvals: ready, credentials: ready },
    };
  },
  readinessKey: (context) => JSON.stringify(context.credentialNames),
  async open() { throw new Error("not used"); },
});
`;
    const testFile = (n: number) => `
import { MCPTestKit, expect } from "jest-m3";
const counting = require("./counting-harness.js");
test("readiness ${n}", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [counting] });
  const [agent] = kit.agents([{ harness: "counting", models: ["m"] }]);
  expect((await agent!.readiness()).ready).toBe(true);
});
`;
    const dir = makeProject({
      "counting-harness.js": harnessModule,
      "m3.config.json": JSON.stringify({ harnesses: ["counting"] }),
      "one.test.ts": testFile(1),
      "two.test.ts": testFile(2),
    });
    dirs.push(dir);
    const run = runUserJest(dir, {
      args: ["--maxWorkers=2"],
      env: { M3_HARNESS_COUNTING: join(dir, "counting-harness.js") },
      timeoutMs: 120_000,
    });
    expect(run.output).toContain("jest-m3: harness counting 1.0.0 is ready");
    expect(run.output).toContain("2 passed");
    expect(readFileSync(join(dir, "probes.log"), "utf8").trim().split("\n")).toHaveLength(1);
  });

  test("a kit closed in the user's own afterEach is not reported as left open", () => {
    const dir = makeProject({
      "hooks.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
let kit: MCPTestKit;
beforeEach(() => {
  kit = new MCPTestKit({ env: {} });
});
afterEach(async () => {
  await kit.close();
});
test("uses the kit", async () => {
  const client = kit.direct(${serverSpec});
  await client.ping();
  expect(kit.closed).toBe(false);
});
`,
    });
    dirs.push(dir);
    const { status, output } = runJest(dir);
    expect(output).toContain("1 passed");
    expect(status).toBe(0);
    expect(output).not.toContain("MCPTestKit(s) open");
  });

  test("a bad configuration key is named before any test runs", () => {
    const dir = makeProject({
      "m3.config.json": JSON.stringify({ harnesess: ["codex"] }),
      "noop.test.ts": 'test("noop", () => undefined);\n',
    });
    dirs.push(dir);
    const { status, output } = runJest(dir);
    expect(status).not.toBe(0);
    expect(output).toContain(
      '"harnesess" is not a setting; the settings are resultsDir, keepRuns, harnesses, agents, scriptedModel, judge, webServers, orphans, prices.',
    );
  });
});
