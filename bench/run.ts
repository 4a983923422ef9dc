// `npm run bench`: every benchmark, one after another (the machine has two cores).
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
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) {
    throw new Error(
      `no benchmark named ${unknown.join(", ")}; the benchmarks: ${Object.keys(BENCHMARKS).join(", ")}`,
    );
  }
  for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
    await BENCHMARKS[name]!();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
