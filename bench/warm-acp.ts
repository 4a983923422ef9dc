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
import { stopWarmPools } from "@jest-m3/core/runner";
import { geminiHarness, opencodeHarness } from "@jest-m3/harness-acp";
import { ACP_AGENTS, acpRound } from "./acp-session";
import { QUOTE_EXPECTED, QUOTE_SCRIPT, reportWarm, warmSession, warmSuites } from "./support";

type Agent = (typeof ACP_AGENTS)[number];

const MODEL = "scripted-1";

async function benchAgent(agent: Agent, sessions: number, suites: number): Promise<void> {
  const times = await warmSuites({
    sessions,
    suites,
    prefix: "bench-warm-acp-",
    // The script of bench/acp-session.ts: these agents give the model only a result's text.
    script: QUOTE_SCRIPT,
    bareWarmUp: () => acpRound("bare", agent),
    bare: () => acpRound("bare", agent),
    bareModel: false,
    // One seed session through the kit on a warm agent.
    warm: (model, log) =>
      warmSession(
        {
          what: `${agent.name} warm`,
          harnesses: [geminiHarness, opencodeHarness],
          agent: {
            harness: agent.name,
            models: [MODEL],
            provider: model.providerFor(agent.dialect),
            options: { warm: true },
          },
          timeout: 120_000,
          expected: QUOTE_EXPECTED,
        },
        log,
      ),
    // The agents and the spare servers waiting for their next session.
    stop: stopWarmPools,
  });
  reportWarm(
    `warm-acp: ${agent.label}, `,
    {
      bare: "bare ACP driver, a process per session",
      warm: "kit, warm agent                       ",
    },
    { sessions, suites },
    times,
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
