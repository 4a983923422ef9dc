// `npm run bench`: the full set, one benchmark after another (the machine has two cores),
// each sized to what it proves so that the whole run fits its 8 minutes; `npm run bench --
// --quick` the everyday set (no agent session benchmarks); `npm run bench -- <names>` those.
// Each prints its ratio and its target, met or not; the run ends with every target line
// again, each benchmark's time, and the whole run's wall time against its 8-minute target.
// A benchmark that throws or falls below its floor fails the run (exit 1), after the others.
import { benchDirect } from "./direct";
import { benchSession } from "./session";
import { benchClaudeCodeSession } from "./claude-code-session";
import { benchAcpSession } from "./acp-session";
import { benchAcpMoreAgents } from "./acp-more-agents";
import { benchPiSession } from "./pi-session";
import { benchWire } from "./wire";
import { benchRelay } from "./relay";
import { benchWarm } from "./warm";
import { benchWarmAcp } from "./warm-acp";
import { benchWarmClaudeCode } from "./warm-claude-code";
import { benchValidation } from "./validation";
import { benchPreset, benchPresetExamples } from "./preset";
import { benchMemory } from "./memory";
import { benchScale } from "./scale";
import { benchMatrix } from "./matrix";
import { benchProviderTap } from "./provider-tap";

// Each benchmark by name: `npm run bench -- preset matrix` runs those two only.
const BENCHMARKS: Record<string, () => Promise<void>> = {
  validation: () => benchValidation(),
  direct: () => benchDirect(),
  wire: () => benchWire(),
  relay: () => benchRelay(),
  session: () => benchSession(),
  warm: () => benchWarm(),
  "warm-acp": () => benchWarmAcp(),
  "warm-claude-code": () => benchWarmClaudeCode(),
  "claude-code-session": () => benchClaudeCodeSession(),
  "acp-session": () => benchAcpSession(),
  "acp-more-agents": () => benchAcpMoreAgents(),
  "pi-session": () => benchPiSession(),
  preset: () => benchPreset(),
  "preset-examples": () => benchPresetExamples(),
  memory: () => benchMemory(),
  scale: () => benchScale(),
  matrix: () => benchMatrix(),
  "provider-tap": () => benchProviderTap(),
};

/** The everyday set: in-process and single-binary benchmarks, a few seconds to a minute each. */
const QUICK = ["validation", "direct", "wire", "relay", "provider-tap"];

/** Left out of the full run, each measured by name, and why. */
const NOT_IN_FULL: Record<string, string> = {
  memory:
    "each session benchmark prints its agent's tree RSS, kit − bare, against the same 10 MB target",
  "preset-examples": "the matrix measures a whole jest run against its sessions, on every agent",
  matrix:
    "the moonshot, with its own target (the slower of two shards under 2 minutes): every agent × 3 trials",
};

/** The whole run's target (issue 36). */
const RUN_TARGET_S = 8 * 60;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const names = args.filter((arg) => arg !== "--quick");
  const unknown = names.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) {
    throw new Error(
      `no benchmark named ${unknown.join(", ")}; the benchmarks: ${Object.keys(BENCHMARKS).join(", ")} (--quick: ${QUICK.join(", ")})`,
    );
  }
  const full = Object.keys(BENCHMARKS).filter((name) => !(name in NOT_IN_FULL));
  const chosen = names.length > 0 ? names : quick ? QUICK : full;
  // Every line a benchmark prints that states a target, kept for the summary.
  const verdicts = new Map<string, string[]>();
  let current = "";
  const log = console.log.bind(console);
  const error = console.error.bind(console);
  const keep = (parts: unknown[]) => {
    for (const line of parts.map(String).join(" ").split("\n")) {
      if (/target/i.test(line) && /\bmet\b|NOT met|FAILED/i.test(line))
        verdicts.get(current)?.push(line.trim());
    }
  };
  console.log = (...parts: unknown[]) => {
    keep(parts);
    log(...parts);
  };
  // A benchmark below its floor says so on stderr.
  console.error = (...parts: unknown[]) => {
    keep(parts);
    error(...parts);
  };
  const seconds = new Map<string, number>();
  const failed: string[] = [];
  const started = performance.now();
  try {
    for (const name of chosen) {
      current = name;
      verdicts.set(name, []);
      const at = performance.now();
      const exitCode = process.exitCode;
      try {
        await BENCHMARKS[name]!();
        if (process.exitCode !== exitCode) failed.push(name);
      } catch (error) {
        // The others still run: one agent's failure does not hide the rest of the figures.
        console.error(`${name}: FAILED (it threw): ${String(error)}`);
        console.error(error);
        failed.push(name);
      } finally {
        seconds.set(name, (performance.now() - at) / 1000);
      }
    }
  } finally {
    console.log = log;
    console.error = error;
    const wall = (performance.now() - started) / 1000;
    log(`\nbench summary (${quick ? "--quick" : names.length > 0 ? names.join(" ") : "full"}):`);
    for (const name of chosen) {
      const lines = verdicts.get(name) ?? [];
      const time = seconds.get(name);
      log(`  ${name} (${time === undefined ? "not run" : `${time.toFixed(0)} s`})`);
      for (const line of lines.length > 0 ? lines : ["printed no target line"]) log(`    ${line}`);
    }
    if (names.length === 0 && !quick) {
      for (const [name, why] of Object.entries(NOT_IN_FULL)) {
        log(`  ${name}: not in the full run (${why}): npm run bench -- ${name}`);
      }
    }
    log(
      `  the run: ${wall.toFixed(0)} s wall${
        names.length === 0 && !quick
          ? `; target ≤ ${RUN_TARGET_S} s: ${wall <= RUN_TARGET_S ? "met" : "NOT met"}`
          : ""
      }`,
    );
    if (failed.length > 0) {
      process.exitCode = 1;
      error(`bench: FAILED: ${failed.join(", ")} (see above); exit code 1`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
