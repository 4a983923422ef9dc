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
import { stopWarmPools } from "@jest-m3/core/runner";
import claudeCodeHarness, { resolveClaudeExecutable } from "@jest-m3/harness-claude-code";
import { claudeCodeBareRound, claudeCodeRound } from "./claude-code-session";
import { reportWarm, SHIPPING_EXPECTED, SHIPPING_SCRIPT, warmSession, warmSuites } from "./support";

const MODEL = "scripted-model";

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
  const times = await warmSuites({
    sessions,
    suites,
    prefix: "bench-warm-claude-",
    script: SHIPPING_SCRIPT,
    bareWarmUp: () => claudeCodeRound("bare", lookup.path),
    // One scripted model per suite on both sides: a session's time is the agent's.
    bare: (model) => claudeCodeBareRound(model!, lookup.path),
    bareModel: true,
    // One seed session through the kit on a warm Claude Code process.
    warm: (model, log) =>
      warmSession(
        {
          what: "warm",
          harnesses: [claudeCodeHarness],
          agent: {
            harness: "claude-code",
            models: [MODEL],
            provider: model.providerFor("anthropic-messages"),
            options: { warm: true },
          },
          timeout: 60_000,
          expected: SHIPPING_EXPECTED,
        },
        log,
      ),
    // The agents and the spare servers waiting for their next session.
    stop: stopWarmPools,
  });
  reportWarm(
    "warm-claude-code: Claude Code, ",
    {
      bare: "bare stream-json driver, a process per session",
      warm: "kit, warm Claude Code                          ",
    },
    { sessions, suites },
    times,
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
