// The quick preset (issue #20): a one-line test, `expect(1).toBe(1)`, as whole `jest` runs
// with a warm cache, in three user projects built from the workspace packages:
// - preset: `preset: "jest-m3"`, a .ts test, and an m3.config.json that names harnesses, a
//   scripted model and agents, as the example's does (none of it may start for this test);
// - ts-jest: plain Jest with ts-jest as its README configures it, the same .ts test and tsconfig;
// - plain Jest: no configuration, the same test as a .js file.
// One warm-up run per project (not counted) fills Jest's cache; then rounds rotate the
// order of the projects so machine noise hits all alike. Medians of the rounds' wall times
// (spawn to exit), and their ratios against both baselines, measured in the same run.
//
// Second part: the examples' own Jest run (examples/shipping, every test, as `npm run
// example` runs it) against the sum of its sessions' own time (each session's creation to
// close, as its kit recorded it).
//
// Run on its own: `npx tsx bench/preset.ts [rounds] [one-line|examples]` (after `npm run build`).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  expectPassed,
  makeProject,
  runFolders,
  runJest,
  sessionTimes,
  SHIPPING,
  USER_TSCONFIG,
} from "./jest-project";
import { median } from "./report";

const ONE_LINE = 'test("one", () => {\n  expect(1).toBe(1);\n});\n';
const TARGET_MS = 600;

type Side = "preset" | "ts-jest" | "jest";
const SIDES: readonly Side[] = ["preset", "ts-jest", "jest"];
const LABELS: Record<Side, string> = {
  preset: 'preset: "jest-m3", .ts',
  "ts-jest": "plain ts-jest, .ts",
  jest: "plain Jest, .js",
};

function projects(): Record<Side, string> {
  return {
    preset: makeProject("preset", {
      "jest.config.js": 'module.exports = { preset: "jest-m3" };\n',
      "tsconfig.json": USER_TSCONFIG,
      "one.test.ts": ONE_LINE,
      "m3.config.json": JSON.stringify({
        harnesses: ["codex", "claude-code"],
        scriptedModel: { script: "model-script.json" },
        agents: [
          { harness: "codex", models: ["gpt-5.5"] },
          { harness: "gemini", models: ["gemini-scripted"] },
        ],
      }),
      "model-script.json": readFileSync(join(SHIPPING, "model-script.json"), "utf8"),
    }),
    "ts-jest": makeProject("ts-jest", {
      "jest.config.js":
        'module.exports = { testEnvironment: "node", transform: { "^.+\\\\.tsx?$": "ts-jest" } };\n',
      "tsconfig.json": USER_TSCONFIG,
      "one.test.ts": ONE_LINE,
    }),
    jest: makeProject("jest", {
      "jest.config.js": "module.exports = {};\n",
      "one.test.js": ONE_LINE,
    }),
  };
}

async function oneLine(rounds: number): Promise<void> {
  const dirs = projects();
  const cache = (side: Side) => [`--cacheDirectory=${join(dirs[side], ".jest-cache")}`];
  try {
    for (const side of SIDES) expectPassed(await runJest(dirs[side], cache(side)), 1, side);
    const times: Record<Side, number[]> = { preset: [], "ts-jest": [], jest: [] };
    const cpu: Record<Side, number[]> = { preset: [], "ts-jest": [], jest: [] };
    for (let round = 0; round < rounds; round++) {
      const order = SIDES.map((_, offset) => SIDES[(round + offset) % SIDES.length]!);
      for (const side of order) {
        const run = await runJest(dirs[side], cache(side));
        expectPassed(run, 1, side);
        if (side === "preset" && /model provider|jest-m3: harness/.test(run.output)) {
          throw new Error(`the preset started something for a one-line test:\n${run.output}`);
        }
        times[side].push(run.wallMs);
        cpu[side].push(run.cpuMs);
      }
    }
    const medians = Object.fromEntries(SIDES.map((side) => [side, median(times[side])])) as Record<
      Side,
      number
    >;
    const cpus = Object.fromEntries(SIDES.map((side) => [side, median(cpu[side])])) as Record<
      Side,
      number
    >;
    console.log(
      `\npreset: a one-line test, whole jest runs, warm cache, median of ${rounds} (rounds rotate the order); wall ms, and CPU ms (user + system of the run's processes)`,
    );
    for (const side of SIDES) {
      console.log(
        `  ${LABELS[side].padEnd(24)} wall ${medians[side].toFixed(0).padStart(5)} ms  cpu ${cpus[side].toFixed(0).padStart(5)} ms  (wall: ${times[side].map((t) => t.toFixed(0)).join(" ")})`,
      );
    }
    const ratio = (of: Record<Side, number>, base: Side) => (of.preset / of[base]).toFixed(3);
    console.log(
      `  preset / plain ts-jest: wall ${ratio(medians, "ts-jest")}×, cpu ${ratio(cpus, "ts-jest")}×; preset / plain Jest: wall ${ratio(medians, "jest")}×, cpu ${ratio(cpus, "jest")}×`,
    );
    console.log(
      `  target ≤ ${TARGET_MS} ms: ${medians.preset <= TARGET_MS ? "met" : "NOT met"} on this machine (${medians.preset.toFixed(0)} ms; plain Jest takes ${medians.jest.toFixed(0)} ms here)`,
    );
  } finally {
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One whole run of the examples: its wall time and the sum of its sessions' own time.
 * `probeCache: false` runs it with M3_PROBE_CACHE=off (every agent probed, as a first run
 * on a fresh machine); otherwise the probe cache is filled by an uncounted run first.
 */
async function examplesRun(
  probeCache: boolean,
  fill = true,
): Promise<{ wallMs: number; sessionsMs: number }> {
  const env: Record<string, string> = probeCache ? {} : { M3_PROBE_CACHE: "off" };
  if (probeCache && fill) await examplesRunOnce({}); // fills the cache; not counted
  const { run, sessions, tests } = await examplesRunOnce(env);
  const sum = sessions.reduce((total, one) => total + one, 0);
  console.log(
    `  ${probeCache ? "probe cache on (a later run) " : "M3_PROBE_CACHE=off (first run)"}  whole run ${run.wallMs.toFixed(0).padStart(6)} ms, sum of its ${sessions.length} sessions ${sum.toFixed(0).padStart(6)} ms (${tests} tests): ${(run.wallMs / sum).toFixed(3)}×`,
  );
  return { wallMs: run.wallMs, sessionsMs: sum };
}

async function examplesRunOnce(env: Record<string, string>) {
  const before = runFolders(SHIPPING);
  const run = await runJest(SHIPPING, [], { timeoutMs: 600_000, env });
  if (run.status !== 0) throw new Error(`the examples failed:\n${run.output.slice(-3000)}`);
  const tests = /Tests:\s+(\d+) passed/.exec(run.output)?.[1] ?? "?";
  const sessions = sessionTimes(SHIPPING, before);
  for (const folder of runFolders(SHIPPING).filter((one) => !before.includes(one))) {
    rmSync(join(SHIPPING, ".m3", "runs", folder), { recursive: true, force: true });
  }
  return { run, sessions, tests };
}

/**
 * The examples' run against its sessions. With `firstRun`, a run with M3_PROBE_CACHE=off
 * first, and an uncounted run that fills the probe cache; else one run, with the probe
 * cache as this machine has it (every run of the repository's tests fills it).
 */
async function examples(firstRun = false): Promise<void> {
  console.log(
    "\npreset: the examples' Jest run (examples/shipping, every test) against the sum of its sessions' own time",
  );
  if (firstRun) await examplesRun(false);
  const later = await examplesRun(true, firstRun);
  const ratio = later.wallMs / later.sessionsMs;
  console.log(
    `  run / sessions (probe cache on): ${ratio.toFixed(3)}×; target ≤ 1.3×: ${ratio <= 1.3 ? "met" : "NOT met"}`,
  );
}

/**
 * `npm run bench -- preset`: the one-line test's startup. The examples' whole run against
 * its sessions is `preset-examples` (left out of the full run: the matrix benchmark measures
 * a whole run against its sessions' own time on every agent).
 */
export async function benchPreset({ rounds = 3 } = {}): Promise<void> {
  await oneLine(rounds);
}

/** `npm run bench -- preset-examples`: the examples' run against its sessions (see above). */
export async function benchPresetExamples({ firstRun = false } = {}): Promise<void> {
  await examples(firstRun);
}

if (require.main === module) {
  const rounds = Number(process.argv[2] ?? 3);
  const only = process.argv[3]; // "one-line" or "examples": that part only
  const run =
    only === "one-line"
      ? oneLine(rounds)
      : only === "examples"
        ? examples(true)
        : oneLine(rounds).then(() => examples(true));
  run.catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
