// Issue #21, "a new user's first hour": each defect, in a user's project run by Jest as a
// child process (the project links this repository's node_modules; install.test.ts does
// the same from packed packages).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
  startJest,
  waitUntil,
  TEST_HARNESS as testHarness,
  SHIPPING_SPEC_SOURCE as serverSpec,
} from "./support/user-project";
import { callRule, startTogether } from "@jest-m3/test-support";
import { resultsIgnorePatterns } from "../dist/shared/preset-paths";

const directTest = `
import { MCPTestKit, expect } from "jest-m3";
test("quotes", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const result = await kit.direct(${serverSpec}).callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(result).toHaveStructuredContent({ amount: 9, currency: "USD" });
});
`;

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeTempDir));
const project = (files: Record<string, string>): string => {
  const dir = makeUserProject(files);
  dirs.push(dir);
  return dir;
};

/**
 * Watch mode's scenario: it mostly waits (a quiet window after the first run), so it runs
 * beside the file's other tests, started with the file (its test, last, awaits it). It
 * times the watcher by the second run's id (the time its setup began), not by this
 * process's clock, which another test's blocking Jest run may hold up.
 */
async function watchScenario(): Promise<void> {
  const dir = makeUserProject({ "quote.test.ts": directTest });
  const runNames = (): string[] =>
    existsSync(join(dir, ".m3", "runs")) ? readdirSync(join(dir, ".m3", "runs")) : [];
  const jest = startJest(dir, { args: ["--watchAll"], timeoutMs: 90_000 });
  // How long nothing may run after the first run's report (its last write to the results
  // folder): longer than the watcher takes to start a run for a real change (checked below).
  const quietMs = 8_000;
  try {
    // The first run ends with its report; then nothing changes for quietMs.
    expect(await waitUntil(() => /report written to/.test(jest.output()), 60_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    expect(jest.output()).toContain("1 passed");
    const [first, ...more] = runNames();
    expect(more).toEqual([]);
    // The watcher is live and quick: a changed test file starts a run well within quietMs,
    // so a run the results folder had triggered would have shown by now.
    const touched = Date.now();
    writeFileSync(join(dir, "quote.test.ts"), `${directTest}\n`);
    expect(await waitUntil(() => runNames().length === 2, 60_000)).toBe(true);
    const second = runNames().find((name) => name !== first)!;
    // A run id starts with its start time: 2026-12-03T14-46-55-784Z-<hex>.
    const started = Date.parse(
      second.slice(0, 24).replace(/^(.{13})-(\d\d)-(\d\d)-(\d{3})Z$/, "$1:$2:$3.$4Z"),
    );
    expect(started - touched).toBeLessThan(quietMs);
  } finally {
    if (!jest.exited) process.kill(jest.pid, "SIGKILL");
    await jest.done;
    removeTempDir(dir);
  }
}
const background = startTogether(1, { watch: watchScenario });

test("a green run's report.json says success, and a direct-only run prints no model-provider line", () => {
  const dir = project({ "quote.test.ts": directTest });
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.output).toContain("1 passed");
  expect(run.status).toBe(0);
  const report = JSON.parse(readFileSync(join(runFolder(dir), "report.json"), "utf8"));
  expect(report.success).toBe(true);
  expect(run.output).not.toContain("model provider");
});

test("a failing run's report.json says it failed", () => {
  const dir = project({ "fails.test.ts": 'test("fails", () => { expect(1).toBe(2); });\n' });
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.status).toBe(1);
  const report = JSON.parse(readFileSync(join(runFolder(dir), "report.json"), "utf8"));
  expect(report.success).toBe(false);
});

test("a trace snapshot of an agent session is the same on every run", () => {
  const dir = project({
    "snap.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
import { testHarness } from ${JSON.stringify(testHarness)};
test("snapshot", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
  const result = await agent!.run('call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\\nreply done', { server: ${serverSpec} });
  expect(result.turns[0]!.toolCalls).toMatchSnapshot();
});
`,
  });
  // The first run writes the snapshot (outside CI mode); the second must match it.
  const first = runJest(dir, { args: ["--ci=false"], timeoutMs: 120_000 });
  expect(first.output).toContain("1 snapshot written");
  const snapshot = readFileSync(join(dir, "__snapshots__", "snap.test.ts.snap"), "utf8");
  expect(snapshot).toContain('"tool": "shipping_quote"');
  expect(snapshot).toContain('"reported"');
  expect(snapshot).not.toMatch(/startedAt|endedAt|latencyMs/);
  const second = runJest(dir, { timeoutMs: 120_000 });
  expect(second.output).toContain("1 passed");
  expect(second.status).toBe(0);
});

test("invalid JSON in m3.config.json is reported with its line and column, without Jest's stack", () => {
  const dir = project({
    "m3.config.json": '{\n  "harnesses": ["codex"],\n}\n',
    "noop.test.ts": 'test("noop", () => undefined);\n',
  });
  const run = runJest(dir, { timeoutMs: 60_000 });
  expect(run.status).not.toBe(0);
  expect(run.output).toContain(`${join(dir, "m3.config.json")}:3:1`);
  expect(run.output).toContain("is not valid JSON");
  expect(run.output).not.toMatch(/node_modules[/\\]@jest[/\\]core/);
  expect(run.output).not.toContain("Got error running globalSetup");
});

test("a test killed by Jest's timeout is not told to use `await using kit`", () => {
  const dir = project({
    "slow.test.ts": `
import { MCPTestKit } from "jest-m3";
test("hangs with its kit in use", async () => {
  await using kit = new MCPTestKit({ env: {} });
  await kit.direct(${serverSpec}).ping();
  await new Promise(() => undefined);
}, 1_500);
`,
  });
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.status).toBe(1);
  expect(run.output).toContain("Exceeded timeout of 1500 ms");
  expect(run.output).toContain(
    "exceeded Jest's test timeout while 1 MCPTestKit(s) were still in use",
  );
  expect(run.output).not.toContain("Use `await using kit");
});

test('an ESM project ("type": "module") runs .test.ts and .test.js files', () => {
  const dir = project({
    "package.json": JSON.stringify({ name: "todo", private: true, type: "module" }),
    "quote.test.ts": directTest,
    "plain.test.js": `
import { MCPTestKit, expect } from "jest-m3";
test("js", async () => {
  await using kit = new MCPTestKit({ env: {} });
  expect(kit.closed).toBe(false);
});
`,
  });
  // An ESM project's Jest configuration is an ES module.
  writeFileSync(join(dir, "jest.config.js"), 'export default { preset: "jest-m3" };\n');
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.output).toContain("2 passed");
  expect(run.status).toBe(0);
});

describe("the run's scripted model (m3.config.json)", () => {
  const agentTest = `
import { MCPTestKit, expect } from "jest-m3";
test("the agent never cancels a shipment", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const result = await agent!.run("Please cancel shipment S1.", { server: ${serverSpec}, timeout: 120_000 });
  expect(result).not.toHaveToolCall("cancel_shipment");
});
`;
  const script = (fallback: boolean) =>
    JSON.stringify({
      rules: [
        {
          name: "quote",
          when: { user: { regex: "quote" } },
          steps: [{ reply: "Quoted." }],
        },
      ],
      ...(fallback ? { fallback: [{ reply: "I only quote." }] } : {}),
    });
  const config = JSON.stringify({ harnesses: ["codex"], scriptedModel: { script: "script.json" } });
  const negativeProject = (fallback: boolean) =>
    project({
      "m3.config.json": config,
      "script.json": script(fallback),
      "negative.test.ts": agentTest,
    });

  test("a turn no rule answers fails its test, and the journal is in the run folder", () => {
    const dir = negativeProject(false);
    const run = runJest(dir, { timeoutMs: 240_000 });
    expect(run.status).toBe(1);
    expect(run.output).toContain(
      "the run's scripted model could not answer 1 request(s) of this test's turns as its script says",
    );
    expect(run.output).toMatch(
      /request #\d+ \(POST \/v1\/responses\): no rule matched: latest user message "Please cancel shipment S1\."/,
    );
    const journal = JSON.parse(readFileSync(join(runFolder(dir), "model-journal.json"), "utf8"));
    expect(
      journal.entries.some((entry: { problem?: string }) =>
        entry.problem?.startsWith("no rule matched"),
      ),
    ).toBe(true);
  });

  test("a script with a fallback opts out: the same test passes", () => {
    const dir = negativeProject(true);
    const run = runJest(dir, { timeoutMs: 240_000 });
    expect(run.output).toContain("1 passed");
    expect(run.status).toBe(0);
    expect(existsSync(join(runFolder(dir), "model-journal.json"))).toBe(true);
  });
});

test('a scripted call to a tool the agent was not offered fails its test, unless its rule says "toolNotOffered": "expected"', () => {
  const policyTest = (name: string, prompt: string) => `
test(${JSON.stringify(name)}, async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const result = await agent!.run(${JSON.stringify(prompt)}, {
    server: ${serverSpec},
    tools: ["shipping:shipping_quote"],
    timeout: 120_000,
  });
  expect(result).not.toHaveToolCall("cancel_shipment");
});
`;
  const dir = project({
    "m3.config.json": JSON.stringify({
      harnesses: ["codex"],
      scriptedModel: { script: "script.json" },
    }),
    "script.json": JSON.stringify({
      rules: [
        {
          name: "on purpose",
          when: { user: { regex: "on purpose" } },
          toolNotOffered: "expected",
          steps: [
            { call: "shipping:cancel_shipment", args: { shipment_id: "S1" } },
            { reply: "Done." },
          ],
        },
        callRule(
          { regex: "by mistake" },
          "shipping:cancel_shipment",
          { shipment_id: "S2" },
          "Done.",
          "by mistake",
        ),
      ],
    }),
    "policy.test.ts":
      'import { MCPTestKit, expect } from "jest-m3";\n' +
      policyTest("withheld on purpose", "Cancel S1 on purpose.") +
      policyTest("withheld by mistake", "Cancel S2 by mistake."),
  });
  const run = runJest(dir, { timeoutMs: 240_000 });
  expect(run.status).toBe(1);
  expect(run.output).toMatch(/✓ withheld on purpose/);
  expect(run.output).toMatch(/✕ withheld by mistake/);
  expect(run.output).toMatch(
    /rule "by mistake" step 1 calls shipping:cancel_shipment, which the request does not offer/,
  );
  expect(run.output).not.toMatch(/rule "on purpose" step 1 calls/);
  expect(run.output).toContain('"toolNotOffered": "expected"');
});

test("a server that crashes under an agent: its own failure first, once; Codex's stderr once, without known noise", () => {
  const dir = project({
    "m3.config.json": JSON.stringify({
      harnesses: ["codex"],
      scriptedModel: { script: "script.json" },
    }),
    "script.json": JSON.stringify({ rules: [], fallback: [{ reply: "ok" }] }),
    "crash.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
test("crashing server", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const result = await agent!.run("Add a todo.", {
    server: { name: "todo", command: process.execPath, args: ["-e", "console.error('todo-server: cannot open database todo.db'); process.exit(3)"] },
    timeout: 60_000,
  });
  expect(result).toBeCompleted();
});
`,
  });
  const run = runJest(dir, { timeoutMs: 240_000 });
  expect(run.status).toBe(1);
  const output = run.output;
  const serverLine = "todo-server: cannot open database todo.db";
  expect(output.split(serverLine).length - 1).toBe(1);
  expect(output.indexOf(`MCP server "todo" stderr`)).toBeLessThan(
    output.indexOf('Harness "codex"'),
  );
  expect(output).not.toMatch(/bubblewrap|PATH aliases/);
  expect(output).not.toContain("Cause:");
  expect(output.split("ERROR codex_core").length - 1).toBeLessThanOrEqual(1);
  expect(output).toContain("session error: M3_HARNESS_START (the failure above)");
  // The report keeps every line the harness printed.
  const report = readFileSync(join(runFolder(dir), "report.json"), "utf8");
  expect(report).toContain(serverLine);
});

test("progress lines from the wire, whatever the provider: per turn, per tool call and per session with M3_PROGRESS=1, none by default outside a terminal", () => {
  // No run-level scripted model: the test brings its own provider, as a live run would.
  const files = {
    "m3.config.json": JSON.stringify({ harnesses: ["codex"] }),
    "agent.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
import { startScriptedModel } from "@jest-m3/scripted-model";
test("quotes through the agent", async () => {
  const model = await startScriptedModel({
    rules: [{ steps: [
      { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
      { reply: "The quote is {{result.amount}} {{result.currency}}." },
    ] }],
  });
  try {
    await using kit = new MCPTestKit({ env: {} });
    const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"], provider: model.provider }]);
    const result = await agent!.run("Quote 2 kg to the local zone.", { server: ${serverSpec}, timeout: 120_000 });
    expect(result).toBeCompleted();
  } finally {
    await model.close();
  }
});
`,
  };
  const on = runJest(project(files), { env: { M3_PROGRESS: "1" }, timeoutMs: 240_000 });
  expect(on.output).toContain("1 passed");
  expect(on.output).toMatch(
    /jest-m3 ▸ [\d.]+s codex:gpt-5\.5 turn 1 sent "Quote 2 kg to the local zone\."/,
  );
  expect(on.output).toMatch(
    /jest-m3 ▸ [\d.]+s codex:gpt-5\.5 turn 1 → shipping:shipping_quote \{"weight_kg":2,"zone":"local"\}/,
  );
  expect(on.output).toMatch(
    /jest-m3 ▸ [\d.]+s codex:gpt-5\.5 turn 1 ← shipping:shipping_quote success in \d+ ms/,
  );
  expect(on.output).toMatch(
    /jest-m3 ▸ [\d.]+s codex:gpt-5\.5 turn 1 completed in [\d.]+s, 1 tool call\(s\)/,
  );
  expect(on.output).toMatch(
    /jest-m3 ▸ session completed in [\d.]+s: codex:gpt-5\.5, 1 turn\(s\), 1 tool call\(s\) — quotes through the agent/,
  );
  const off = runJest(project(files), { env: { CI: "" }, timeoutMs: 240_000 });
  expect(off.output).toContain("1 passed");
  expect(off.output).not.toContain("jest-m3 ▸");
});

test('a harness name typo ("codx") stops the run, suggests "codex", and no package that does not exist', () => {
  const dir = project({
    "m3.config.json": JSON.stringify({ harnesses: ["codx"] }),
    "noop.test.ts": 'test("noop", () => undefined);\n',
  });
  const run = runJest(dir, { timeoutMs: 60_000 });
  expect(run.status).not.toBe(0);
  expect(run.output).toContain(
    'names the harness "codx", which is not installed or registered. Did you mean "codex"?',
  );
  expect(run.output).not.toContain("harness-codx");
  expect(run.output).not.toContain("noop");
});

test("a tsconfig without module or esModuleInterop gets no ts-jest hint on every run", () => {
  const dir = project({ "quote.test.ts": directTest });
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { lib: ["ES2022", "ESNext.Disposable"], types: ["node", "jest"] },
    }),
  );
  const run = runJest(dir, { timeoutMs: 120_000 });
  expect(run.output).toContain("1 passed");
  expect(run.output).not.toContain("esModuleInterop");
  expect(run.output).not.toContain("ts-jest[");
});

test("the preset ignores a configured resultsDir too, in watch mode and as tests", () => {
  const dir = project({ "m3.config.json": JSON.stringify({ resultsDir: "out/m3-results" }) });
  const patterns = resultsIgnorePatterns(dir).map((pattern) => new RegExp(pattern));
  const ignored = (path: string) => patterns.some((pattern) => pattern.test(path));
  expect(ignored(join(dir, ".m3", "runs", "x", "report.json"))).toBe(true);
  expect(ignored(join(dir, "out", "m3-results", "runs", "x", "report.json"))).toBe(true);
  expect(ignored(join(dir, "out", "other", "a.test.ts"))).toBe(false);
  expect(ignored(join(dir, "quote.test.ts"))).toBe(false);
});

test("watch mode runs once and waits: the results folder never triggers a run", async () => {
  await background.run("watch");
});
