// `npm run bench`: every benchmark, one after another (the machine has two cores);
// `npm run bench -- --quick` the everyday set (no agent session benchmarks). Each prints its
// ratio and its target, met or not; the run ends with every target line again, each
// benchmark's time, and the whole run's wall time against its 8-minute target.
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
import { benchPreset } from "./preset";
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
  memory: () => benchMemory(),
  scale: () => benchScale(),
  matrix: () => benchMatrix(),
  "provider-tap": () => benchProviderTap(),
};

/** The everyday set: in-process and single-binary benchmarks, a few seconds to a minute each. */
const QUICK = ["validation", "direct", "wire", "relay", "provider-tap"];

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
  const chosen = names.length > 0 ? names : quick ? QUICK : Object.keys(BENCHMARKS);
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
  const started = performance.now();
  try {
    for (const name of chosen) {
      current = name;
      verdicts.set(name, []);
      const at = performance.now();
      try {
        await BENCHMARKS[name]!();
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
    log(
      `  the run: ${wall.toFixed(0)} s wall${
        names.length === 0 && !quick
          ? `; target ≤ ${RUN_TARGET_S} s: ${wall <= RUN_TARGET_S ? "met" : "NOT met"}`
          : ""
      }`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
