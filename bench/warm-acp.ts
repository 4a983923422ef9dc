// A suite of N seed sessions (two turns, one quote each) through the kit with warm ACP agents
// (`options: { warm: true }`: one Gemini CLI or OpenCode process per worker and plan,
// each session its own ACP session) against N sessions of the bare ACP driver of
// bench/acp-session.ts (the SDK's client() and nothing of ours, one process per session).
// Same binary, settings, model script and shipping server; every session's replies, its
// calls and the server's own call log are checked. Suites alternate (bare, warm, bare,
// warm, ...) so noise hits both alike; each warm suite starts cold (its first session
// starts the agent). The warm sessions of a suite share one scripted model, as a suite's
// tests do: the provider's address is part of what a warm process is started with.
//
// Run on its own: `npx tsx bench/warm-acp.ts [gemini] [opencode]` (after `npm run build`).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import { geminiHarness, opencodeHarness, stopWarmAcpAgents } from "@jest-m3/harness-acp";
import { startScriptedModel, type Script, type ScriptedModel } from "@jest-m3/scripted-model";
import { ACP_AGENTS, acpRound } from "./acp-session";
import { median } from "./report";

type Agent = (typeof ACP_AGENTS)[number];
type Side = "bare" | "warm";

const SHIPPING = join(__dirname, "..", "examples", "shipping");
const MODEL = "scripted-1";
const PROMPTS = [
  "Call shipping_quote once for weight_kg 2 in zone local.",
  "Call shipping_quote once for weight_kg 3 in zone regional.",
] as const;
// The script of bench/acp-session.ts: these agents give the model only a result's text.
const SCRIPT: Script = {
  rules: [
    {
      name: "quote",
      when: { user: /weight_kg (\d+) in zone (\w+)/ },
      steps: [
        {
          call: "shipping:shipping_quote",
          args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
        },
        { reply: "The {{match.2}} quote for {{match.1}} kg is ready." },
      ],
    },
  ],
};
const EXPECTED = ["2 kg", "3 kg"] as const;

function checkLog(file: string): void {
  const calls = readFileSync(file, "utf8").split("\n").filter(Boolean);
  if (calls.length !== 2) throw new Error(`warm: the server logged ${calls.length} calls, not 2`);
}

/** One seed session through the kit on a warm agent. */
async function warm(agent: Agent, model: ScriptedModel, log: string): Promise<void> {
  await using kit = new MCPTestKit({ env: {}, harnesses: [geminiHarness, opencodeHarness] });
  const [selection] = kit.agents([
    {
      harness: agent.name,
      models: [MODEL],
      provider: model.providerFor(agent.dialect),
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
    timeout: 120_000,
  });
  {
    await using open = await session.open();
    for (const [index, prompt] of PROMPTS.entries()) {
      const turn = await open.send(prompt);
      if (!turn.response?.text.includes(EXPECTED[index]!)) {
        throw new Error(`${agent.name} warm: replied ${turn.response?.text}`);
      }
      const quotes = turn.toolCalls.filter(
        (call) => call.status === "success" && call.evidence === "both",
      );
      if (quotes.length !== 1) throw new Error(`${agent.name} warm: ${quotes.length} quotes`);
    }
  }
  if (session.result.snapshot.outcome !== "completed") {
    throw new Error(`${agent.name} warm: not completed`);
  }
  checkLog(log);
}

async function benchAgent(agent: Agent, sessions: number, suites: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-warm-acp-"));
  const totals: Record<Side, number[]> = { bare: [], warm: [] };
  const each: Record<Side, number[]> = { bare: [], warm: [] };
  let serial = 0;
  try {
    // Warm-up, not counted: readiness probes, page cache.
    await acpRound("bare", agent);
    const warmUp = await startScriptedModel(SCRIPT);
    try {
      await warm(agent, warmUp, join(dir, `w${serial++}.jsonl`));
    } finally {
      await stopWarmAcpAgents();
      await warmUp.close();
    }
    for (let suite = 0; suite < suites; suite++) {
      for (const side of ["bare", "warm"] as const) {
        const model = side === "warm" ? await startScriptedModel(SCRIPT) : undefined;
        const started = performance.now();
        try {
          for (let index = 0; index < sessions; index++) {
            const one = performance.now();
            // The bare round checks its replies, its calls and that nothing of it is left.
            if (model) await warm(agent, model, join(dir, `warm-${serial++}.jsonl`));
            else await acpRound("bare", agent);
            each[side].push(performance.now() - one);
          }
          if (model) await stopWarmAcpAgents(); // the suite's agent stops within its time
        } finally {
          await model?.close();
        }
        totals[side].push(performance.now() - started);
      }
    }
  } finally {
    await stopWarmAcpAgents();
    rmSync(dir, { recursive: true, force: true });
  }
  const ratio = median(totals.warm) / median(totals.bare);
  console.log(
    `\nwarm-acp: ${agent.label}, a suite of ${sessions} two-turn seed sessions, ${suites} suites per side (alternating), ms`,
  );
  for (const side of ["bare", "warm"] as const) {
    console.log(
      `  ${side === "bare" ? "bare ACP driver, a process per session" : "kit, warm agent                       "}  suite median ${median(totals[side]).toFixed(0)}  (suites: ${totals[side].map((t) => t.toFixed(0)).join(" ")}); per session median ${median(each[side]).toFixed(0)}`,
    );
  }
  console.log(
    `  warm / bare: ${ratio.toFixed(3)}×; target ≤ 0.6×: ${ratio <= 0.6 ? "met" : "NOT met"}`,
  );
}

/**
 * The benchmark: per agent, a warm-up session of each side, then `suites` suites of
 * `sessions` sessions per side, alternating. Prints each side's suite and per-session
 * medians and the warm/bare ratio against the 0.6× target.
 */
export async function benchWarmAcp({
  sessions = 4,
  suites = 2,
  // OpenCode's sessions take four times Gemini CLI's: `npx tsx bench/warm-acp.ts gemini opencode`.
  agents = ["gemini"],
}: { sessions?: number; suites?: number; agents?: readonly string[] } = {}): Promise<void> {
  for (const agent of ACP_AGENTS.filter((one) => agents.includes(one.name))) {
    await benchAgent(agent, sessions, suites);
  }
  console.log(
    "  every session: both replies checked, one successful quote per turn (warm: wire and reported, and two calls in the server's own log; bare: every process gone by pid)",
  );
}

if (require.main === module) {
  const agents = process.argv.slice(2);
  benchWarmAcp(agents.length > 0 ? { agents } : {}).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
