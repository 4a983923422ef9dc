// A suite of N seed sessions (two turns, one quote each) through the kit with warm Claude
// Code (`options: { warm: true }`: one `claude --print` process per worker and key, reset
// between sessions) against N sessions of the bare stream-json driver of
// bench/claude-code-session.ts (nothing of ours, one process per session). Same binary,
// flags, model script and shipping server; every session's replies, its calls and the
// server's own call log are checked. Suites alternate (bare, warm, bare, warm, ...) so noise
// hits both alike; each warm suite starts cold (its first session starts the process). The
// warm sessions of a suite share one scripted model, as a suite's tests do: the provider's
// address is part of what a warm process is started with.
//
// Run on its own: `npx tsx bench/warm-claude-code.ts [sessions] [suites]` (after `npm run build`).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import claudeCodeHarness, {
  resolveClaudeExecutable,
  stopWarmClaudeCode,
} from "@jest-m3/harness-claude-code";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { claudeCodeBareRound, claudeCodeRound } from "./claude-code-session";
import { median } from "./report";

type Side = "bare" | "warm";

const SHIPPING = join(__dirname, "..", "examples", "shipping");
const SCRIPT = join(SHIPPING, "model-script.json");
const MODEL = "scripted-model";
const PROMPTS = [
  "Call shipping_quote once for weight_kg 2 in zone local.",
  "Call shipping_quote once for weight_kg 3 in zone regional.",
] as const;
const EXPECTED = ["9 USD", "15.5"] as const;

/** One seed session through the kit on a warm Claude Code process. */
async function warm(model: ScriptedModel, log: string): Promise<void> {
  await using kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
  const [selection] = kit.agents([
    {
      harness: "claude-code",
      models: [MODEL],
      provider: model.providerFor("anthropic-messages"),
      options: { warm: true },
    },
  ]);
  const session = selection!.session({
    server: {
      name: "shipping",
      command: process.execPath,
      args: [join(SHIPPING, "shipping-server.mjs")],
      env: { SHIPPING_CALL_LOG: log },
      cwd: SHIPPING,
    },
    tools: ["shipping:shipping_quote"],
    timeout: 60_000,
  });
  {
    await using open = await session.open();
    for (const [index, prompt] of PROMPTS.entries()) {
      const turn = await open.send(prompt);
      if (!turn.response?.text.includes(EXPECTED[index]!)) {
        throw new Error(`warm: turn ${index + 1} replied ${JSON.stringify(turn.response?.text)}`);
      }
      const quotes = turn.toolCalls.filter(
        (call) => call.status === "success" && call.evidence === "both",
      );
      if (quotes.length !== 1)
        throw new Error(`warm: turn ${index + 1} made ${quotes.length} quotes`);
    }
  }
  if (session.result.snapshot.outcome !== "completed") throw new Error("warm: not completed");
  const calls = readFileSync(log, "utf8").split("\n").filter(Boolean);
  if (calls.length !== 2) throw new Error(`warm: the server logged ${calls.length} calls, not 2`);
}

/**
 * The benchmark: a warm-up session of each side, then `suites` suites of `sessions`
 * sessions per side, alternating. Prints each side's suite and per-session medians and the
 * warm/bare ratio against the 0.6× target.
 */
export async function benchWarmClaudeCode({
  sessions = 8,
  suites = 2,
}: { sessions?: number; suites?: number } = {}): Promise<void> {
  const lookup = resolveClaudeExecutable({}, {});
  if (!lookup.found) throw new Error(lookup.reason);
  const dir = mkdtempSync(join(tmpdir(), "bench-warm-claude-"));
  const totals: Record<Side, number[]> = { bare: [], warm: [] };
  const each: Record<Side, number[]> = { bare: [], warm: [] };
  let serial = 0;
  try {
    // Warm-up, not counted: readiness probes, page cache.
    await claudeCodeRound("bare", lookup.path);
    const warmUp = await startScriptedModel(SCRIPT);
    try {
      await warm(warmUp, join(dir, `w${serial++}.jsonl`));
    } finally {
      await stopWarmClaudeCode();
      await warmUp.close();
    }
    for (let suite = 0; suite < suites; suite++) {
      for (const side of ["bare", "warm"] as const) {
        // One scripted model per suite on both sides: a session's time is the agent's.
        const model = await startScriptedModel(SCRIPT);
        const started = performance.now();
        try {
          for (let index = 0; index < sessions; index++) {
            const one = performance.now();
            // The bare round checks its replies, its calls and that nothing of it is left.
            if (side === "warm") await warm(model, join(dir, `warm-${serial++}.jsonl`));
            else await claudeCodeBareRound(model, lookup.path);
            each[side].push(performance.now() - one);
          }
          if (side === "warm") await stopWarmClaudeCode(); // the suite's process stops within its time
        } finally {
          await model.close();
        }
        totals[side].push(performance.now() - started);
      }
    }
  } finally {
    await stopWarmClaudeCode();
    rmSync(dir, { recursive: true, force: true });
  }
  const ratio = median(totals.warm) / median(totals.bare);
  console.log(
    `\nwarm-claude-code: Claude Code, a suite of ${sessions} two-turn seed sessions, ${suites} suites per side (alternating), ms`,
  );
  for (const side of ["bare", "warm"] as const) {
    const label =
      side === "bare"
        ? "bare stream-json driver, a process per session"
        : "kit, warm Claude Code                          ";
    console.log(
      `  ${label}  suite median ${median(totals[side]).toFixed(0)}  (suites: ${totals[side].map((t) => t.toFixed(0)).join(" ")}); per session median ${median(each[side]).toFixed(0)}`,
    );
  }
  console.log(
    `  warm / bare: ${ratio.toFixed(3)}×; target ≤ 0.6×: ${ratio <= 0.6 ? "met" : "NOT met"}`,
  );
  console.log(
    "  every session: both replies checked, one successful quote per turn (warm: wire and reported, and two calls in the server's own log; bare: every process gone by pid)",
  );
}

if (require.main === module) {
  const [sessions, suites] = process.argv.slice(2).map(Number);
  benchWarmClaudeCode({
    ...(sessions ? { sessions } : {}),
    ...(suites ? { suites } : {}),
  }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
