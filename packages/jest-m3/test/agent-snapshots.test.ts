// toMatchTrajectorySnapshot() inside describeAgents, in a user's project run by Jest as a
// child process: the agents whose trajectories agree share one snapshot per test, named
// without agent or version; an agent that takes another path gets its own, named by harness
// and model. Then the per-job runs docs/matrices.md recommends (M3_AGENTS naming one agent,
// `--ci`) and a `-t` run pass without "obsolete", and an agent that differs from the shared
// snapshot fails, saying which snapshot it was and what to do.
//
// The agents: real Codex on the scripted model, and the `test` harness (real MCP calls
// through the capture, from instructions in the prompt) under two and three model names.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { callRule } from "@jest-m3/test-support";
import {
  makeUserProject,
  REPO,
  removeTempDir,
  runJest,
  startJest,
  type JestRun,
} from "./support/user-project";

const TEST_HARNESS = join(REPO, "packages", "core", "dist", "testing.js");

const QUOTE = 'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}';
const EXTRA = 'call shipping:shipping_quote {"weight_kg":5,"zone":"regional"}';

const SUITE = `import { MCPTestKit, describeAgents, expect } from "jest-m3";
import { testHarness } from ${JSON.stringify(TEST_HARNESS)};

const server = {
  name: "shipping",
  command: process.execPath,
  args: [${JSON.stringify(join(REPO, "examples", "shipping", "shipping-server.mjs"))}],
};

describeAgents("seed", (agent) => {
  test("agree", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [selection] = kit.agents([agent.selection]);
    const result = await selection!.run(${JSON.stringify(`${QUOTE}\nreply Quoted.`)}, { server });
    expect(result).toHaveToolCall("shipping_quote", { status: "success", count: 1 });
    expect(result).toMatchTrajectorySnapshot();
  });

  test("differ", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [selection] = kit.agents([agent.selection]);
    // The test harness under any model but m1 takes a second quote: another trajectory.
    const extra = agent.harness === "test" && agent.model !== "m1" && !process.env.SAME_PATH;
    const prompt = extra
      ? ${JSON.stringify(`${QUOTE}\n${EXTRA}\nreply Quoted twice.`)}
      : ${JSON.stringify(`${QUOTE}\nreply Quoted.`)};
    const result = await selection!.run(prompt, { server });
    expect(result).toMatchTrajectorySnapshot();
  });
});
`;

// Codex's turns: the scripted model answers the same prompt with the same call.
const SCRIPT = JSON.stringify({
  rules: [
    callRule(
      { regex: "shipping_quote" },
      "shipping:shipping_quote",
      { weight_kg: 2, zone: "local" },
      "Quoted.",
      "quote",
    ),
  ],
});

let dir: string | undefined;
afterAll(() => removeTempDir(dir));

const ALL = "test=m1,test=m2,codex=gpt-5.5";

function run(
  agents: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): JestRun {
  return runJest(dir!, {
    args,
    env: { M3_AGENTS: agents, M3_HARNESS_TEST: join(dir!, "test-harness.cjs"), ...env },
    timeoutMs: 300_000,
  });
}

/** {@link run} without blocking: the `--ci` jobs, which write nothing, go side by side. */
function runAsync(agents: string, args: readonly string[] = []): Promise<JestRun> {
  return startJest(dir!, {
    args,
    env: { M3_AGENTS: agents, M3_HARNESS_TEST: join(dir!, "test-harness.cjs") },
    timeoutMs: 300_000,
  }).done;
}

const snapshotKeys = (): string[] => {
  const file = join(dir!, "__snapshots__", "seed.test.ts.snap");
  if (!existsSync(file)) return [];
  return [...readFileSync(file, "utf8").matchAll(/^exports\[`(.*)`\] = /gm)]
    .map((m) => m[1]!)
    .sort();
};

test("one shared snapshot per test where agents agree; subsets of the agents pass without obsolete", async () => {
  dir = makeUserProject({
    "m3.config.json": JSON.stringify({ scriptedModel: { script: "script.json" } }),
    "script.json": SCRIPT,
    "test-harness.cjs": `module.exports = { default: require(${JSON.stringify(TEST_HARNESS)}).testHarness() };\n`,
    "seed.test.ts": SUITE,
  });

  // Every agent, writing the snapshots (no --ci): three snapshots, no version, no label.
  const first = run(ALL, ["--ci=false"]);
  expect({ status: first.status, tail: first.output.slice(-1500) }).toMatchObject({ status: 0 });
  expect(first.output).toContain("3 snapshots written");
  expect(snapshotKeys()).toEqual([
    "seed agree: toMatchTrajectorySnapshot 1",
    "seed differ: toMatchTrajectorySnapshot 1",
    "seed differ: toMatchTrajectorySnapshot [test m2] 1",
  ]);
  const stored = readFileSync(join(dir, "__snapshots__", "seed.test.ts.snap"), "utf8");
  expect(stored).not.toMatch(/codex|\d+\.\d+\.\d+/);
  expect(stored).toContain('shipping:shipping_quote {"weight_kg":5,"zone":"regional"} → success');

  // One CI job per agent (docs/matrices.md): each checks what it ran, none is obsolete.
  const jobs = ["codex=gpt-5.5", "test=m2", "test=m1"] as const;
  const runs = await Promise.all(jobs.map((agents) => runAsync(agents, ["--ci"])));
  for (const [index, agents] of jobs.entries()) {
    const job = runs[index]!;
    expect({ agents, status: job.status, tail: job.output.slice(-1500) }).toMatchObject({
      agents,
      status: 0,
    });
    expect(job.output).not.toMatch(/obsolete|snapshots? (written|removed|updated)/);
    expect(job.output).toMatch(/Snapshots: +2 passed, 2 total/);
  }

  // A -t run over every agent: the tests it skipped keep their snapshots.
  const filtered = run(ALL, ["--ci", "-t", "agree"]);
  expect({ status: filtered.status, tail: filtered.output.slice(-1500) }).toMatchObject({
    status: 0,
  });
  expect(filtered.output).not.toMatch(/obsolete/);
  expect(filtered.output).toMatch(/Snapshots: +3 passed, 3 total/);
  expect(snapshotKeys()).toHaveLength(3);
}, 900_000);

test("an agent whose trajectory differs from the shared snapshot fails, naming it and the fix", async () => {
  // m3 takes m2's path, which the snapshot the agents share does not hold.
  const differ = run("test=m3", ["--ci"]);
  expect(differ.status).toBe(1);
  expect(differ.output).toContain(
    "Snapshot name: `seed differ: toMatchTrajectorySnapshot 1`, the snapshot the agents share",
  );
  expect(differ.output).toContain(
    '+   shipping:shipping_quote {"weight_kg":5,"zone":"regional"} → success',
  );
  expect(differ.output).toContain(
    "If test m3 is meant to take another path than the other agents, `M3_AGENTS=test=m3 npx jest -u` stores its own snapshot; the other agents keep the shared one.",
  );
  expect(differ.output).not.toMatch(/obsolete/);
  expect(snapshotKeys()).toHaveLength(3);

  // The fix it names: m3's own snapshot, and the shared one untouched for the others.
  const shared = readFileSync(join(dir!, "__snapshots__", "seed.test.ts.snap"), "utf8");
  const fix = run("test=m3", ["--ci=false", "-u"]);
  expect({ status: fix.status, tail: fix.output.slice(-1500) }).toMatchObject({ status: 0 });
  expect(snapshotKeys()).toEqual([
    "seed agree: toMatchTrajectorySnapshot 1",
    "seed differ: toMatchTrajectorySnapshot 1",
    "seed differ: toMatchTrajectorySnapshot [test m2] 1",
    "seed differ: toMatchTrajectorySnapshot [test m3] 1",
  ]);
  const after = readFileSync(join(dir!, "__snapshots__", "seed.test.ts.snap"), "utf8");
  const entry = (text: string, key: string) =>
    new RegExp(`exports\\[\`${key.replace(/[[\]]/g, "\\$&")}\`\\] = \`[^\`]*\``).exec(text)?.[0];
  expect(entry(shared, "seed differ: toMatchTrajectorySnapshot 1")).toContain("turn 1");
  expect(entry(after, "seed differ: toMatchTrajectorySnapshot 1")).toBe(
    entry(shared, "seed differ: toMatchTrajectorySnapshot 1"),
  );
  const jobs = ["test=m3", "test=m1"] as const;
  const runs = await Promise.all(jobs.map((agents) => runAsync(agents, ["--ci"])));
  for (const [index, agents] of jobs.entries()) {
    const job = runs[index]!;
    expect({ agents, status: job.status }).toEqual({ agents, status: 0 });
    expect(job.output).not.toMatch(/obsolete/);
  }
}, 300_000);

test("-u after the agents converge: the agent's own snapshot goes, the shared one stays", () => {
  const update = run(ALL, ["--ci=false", "-u"], { SAME_PATH: "1" });
  expect({ status: update.status, tail: update.output.slice(-1500) }).toMatchObject({
    status: 0,
  });
  expect(update.output).toMatch(/1 snapshot removed/);
  // m2's own went (it agrees now); m3's stays: m3 was not in this run.
  expect(snapshotKeys()).toEqual([
    "seed agree: toMatchTrajectorySnapshot 1",
    "seed differ: toMatchTrajectorySnapshot 1",
    "seed differ: toMatchTrajectorySnapshot [test m3] 1",
  ]);
  const again = run("test=m2", ["--ci"], { SAME_PATH: "1" });
  expect(again.status).toBe(0);
  expect(again.output).toMatch(/Snapshots: +2 passed, 2 total/);
}, 300_000);
