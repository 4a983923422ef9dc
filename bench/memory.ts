// Memory (issue #20): what the kit adds per session over the harness itself, for every
// harness. Each round is one two-turn seed session of the harness's own session benchmark
// (bench/session.ts for Codex, bench/claude-code-session.ts, bench/acp-session.ts for
// Gemini CLI and OpenCode): the bare driver of the same binary (nothing of ours) or the kit
// (agent.session). Around each round, after a forced GC, this process and every process
// below it are sampled every 20 ms; the round's footprint is the peak of their summed RSS
// above the sum just before the round. Per harness: the median footprint of each side and
// their difference, the kit's overhead per session (target ≤ 10 MB). Sides alternate; the
// first round of each side (readiness, page cache) is not counted. Each round checks the
// replies, the wire calls and that every process is gone after close (see those files).
//
// Run on its own: `npx tsx bench/memory.ts [rounds] [harness…]` (after `npm run build`);
// `npx tsx bench/memory.ts by-process [harness…]` prints each process's peak instead.
import { resolveClaudeExecutable } from "@jest-m3/harness-claude-code";
import { resolveCodexExecutable } from "@jest-m3/harness-codex";
import { acpRound, ACP_AGENTS } from "./acp-session";
import { claudeCodeRound } from "./claude-code-session";
import { readFileSync } from "node:fs";
import { MB } from "./jest-project";
import { rssOf, tree as processTree, treeRss } from "./process-tree";
import { median } from "./report";
import { codexRound, forcedGc } from "./session";

type Side = "bare" | "kit";
const TARGET_MB = 10;

/** Runs `work`, sampling the tree's RSS; returns the peak above the level before it, bytes. */
async function footprint(work: () => Promise<unknown>, gc: () => void): Promise<number> {
  gc();
  const base = treeRss(process.pid);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(process.pid))), 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, treeRss(process.pid));
  return peak - base;
}

/** Every harness's round, by name. */
function harnessRounds(
  gc: () => void,
): Array<{ name: string; round: (side: Side) => Promise<unknown> }> {
  const codex = resolveCodexExecutable({}, {});
  if (!codex.found) throw new Error(codex.reason);
  const claude = resolveClaudeExecutable({}, {});
  if (!claude.found) throw new Error(claude.reason);
  return [
    { name: "codex", round: (side) => codexRound(side, codex.path, gc) },
    { name: "claude-code", round: (side) => claudeCodeRound(side, claude.path) },
    ...ACP_AGENTS.map((agent) => ({
      name: agent.name,
      round: (side: Side) => acpRound(side, agent),
    })),
  ];
}

/** A process's command line, shortened: what it is, for a reader. */
function commandOf(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    return args.slice(0, 3).join(" ").replace(/\s+/g, " ").replace(process.cwd(), ".").slice(0, 80);
  } catch {
    return "?";
  }
}

/**
 * One round per side and harness, each process below this one sampled every 20 ms: the
 * peak RSS of each, by command line. Where the kit's overhead is, process by process.
 */
export async function memoryByProcess(only: readonly string[] = []): Promise<void> {
  const gc = forcedGc();
  for (const harness of harnessRounds(gc).filter(
    (one) => only.length === 0 || only.includes(one.name),
  )) {
    await harness.round("kit"); // warm-up: readiness, page cache
    for (const side of ["bare", "kit"] as const) {
      const peaks = new Map<string, number>();
      const sample = (): void => {
        const now = new Map<string, number>();
        for (const pid of processTree(process.pid)) {
          if (pid === process.pid) continue;
          const command = commandOf(pid);
          now.set(command, (now.get(command) ?? 0) + rssOf(pid));
        }
        for (const [command, rss] of now)
          peaks.set(command, Math.max(peaks.get(command) ?? 0, rss));
      };
      gc();
      const sampler = setInterval(sample, 20);
      try {
        await harness.round(side);
      } finally {
        clearInterval(sampler);
      }
      console.log(
        `\nmemory by process: ${harness.name}, ${side}, peak RSS of each process below this one, MB`,
      );
      for (const [command, rss] of [...peaks].sort((a, b) => b[1] - a[1])) {
        if (rss >= MB) console.log(`  ${(rss / MB).toFixed(0).padStart(6)}  ${command}`);
      }
    }
  }
}

export async function benchMemory({
  rounds = 3,
  only = [] as readonly string[],
} = {}): Promise<void> {
  const gc = forcedGc();
  const harnesses = harnessRounds(gc);
  const rows: Array<{ name: string; bare: number[]; kit: number[] }> = [];
  for (const harness of harnesses.filter((one) => only.length === 0 || only.includes(one.name))) {
    const row = { name: harness.name, bare: [] as number[], kit: [] as number[] };
    for (const side of ["bare", "kit"] as const) await harness.round(side); // warm-up
    for (let index = 0; index < rounds; index++) {
      const order: readonly Side[] = index % 2 === 0 ? ["bare", "kit"] : ["kit", "bare"];
      for (const side of order) row[side].push(await footprint(() => harness.round(side), gc));
    }
    rows.push(row);
  }
  console.log(
    `\nmemory: one two-turn seed session, peak summed RSS of this process and everything below it, above the level before the session, MB, median of ${rounds}`,
  );
  console.log(
    "  harness        bare driver      kit   kit − bare (the kit's overhead per session)",
  );
  for (const row of rows) {
    const bare = median(row.bare) / MB;
    const kit = median(row.kit) / MB;
    const over = kit - bare;
    console.log(
      `  ${row.name.padEnd(12)} ${bare.toFixed(1).padStart(11)} ${kit.toFixed(1).padStart(8)} ${over.toFixed(1).padStart(8)}  target ≤ ${TARGET_MB} MB: ${over <= TARGET_MB ? "met" : "NOT met"}   (bare: ${row.bare.map((b) => (b / MB).toFixed(0)).join(" ")}; kit: ${row.kit.map((k) => (k / MB).toFixed(0)).join(" ")})`,
    );
  }
}

if (require.main === module) {
  const [first, ...rest] = process.argv.slice(2);
  const run =
    first === "by-process"
      ? memoryByProcess(rest)
      : benchMemory({ rounds: Number(first ?? 3), only: rest });
  run.catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
