/**
 * The Claude Code adapter over the real binary, the scripted model (Anthropic Messages) and
 * the real shipping server: multi-turn sessions, provider failures, interrupts, and a
 * Claude Code process that dies.
 */
import claudeCodeHarness, { type ClaudeCodeSession } from "@jest-m3/harness-claude-code";
import { claudeSelection, isRunning, knownPids, shippingServer, turn } from "./support/claude";
import {
  perTestKit,
  ADAPTER_SCRIPT,
  expectFailureThenRecovery,
  expectHangInterrupted,
  expectKilledMidAdapterTurn,
  expectQuoteTurns,
  openOnShipping as openSession,
  QUOTE_PROMPTS,
} from "@jest-m3/test-support";

jest.setTimeout(60_000);

describe("Claude Code sessions (real claude, scripted model, real MCP server)", () => {
  const t = perTestKit({ script: ADAPTER_SCRIPT, model: "each" });

  /** A session on the shipping server (its log new), its capture and pid checked after the test. */
  const openOnShipping = (tools?: string[]) =>
    openSession<ClaudeCodeSession>(
      t,
      claudeCodeHarness,
      claudeSelection(t.model.providerFor("anthropic-messages")),
      tools,
      shippingServer,
    );

  test("two turns in one process, one successful shipping_quote each: wire = server log = reported", async () => {
    const { log, capture, events, session } = await openOnShipping(["shipping:shipping_quote"]);
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);

    const first = await turn(session, capture, "turn-1", QUOTE_PROMPTS[0]!);
    const second = await turn(session, capture, "turn-2", QUOTE_PROMPTS[1]!);
    expectQuoteTurns([first, second], capture, log, expect.any(String));

    // One conversation: every message of both turns carries the session's id.
    const ids = new Set(
      [first, second].flatMap((entry) =>
        entry.events.map((event) => (event as { session_id?: string }).session_id),
      ),
    );
    expect([...ids]).toEqual([session.id]);

    // Allowed tools run without a permission prompt; nothing was hidden (one tool, allowed).
    expect(events.filter((event) => event.kind === "approval")).toEqual([]);
    t.model.journal.assertNoProblems();
    for (const entry of t.model.journal.entries) {
      expect(entry.conversation?.offeredTools).toEqual(["shipping:shipping_quote"]);
    }

    await session.close();
    expect(session.health().alive).toBe(false);
    await session.close(); // idempotent
    expect(knownPids(t.kit, t.captures).concat(t.pids).filter(isRunning)).toEqual([]);
  });

  test("a provider failure fails turn 1 with Claude Code's words; turn 2 in the same session succeeds", async () => {
    const { log, capture, session } = await openOnShipping();
    const failed = await expectFailureThenRecovery(session, capture, log, /401.*bad key/);
    expect(failed.response).toBeNull();
  });

  test("a hanging model: abort → interrupt control request → interrupted; the next turn works", async () => {
    const { capture, session } = await openOnShipping();
    const interrupted = await expectHangInterrupted(session, capture, t.model);
    expect(
      interrupted.events.some(
        (event) =>
          (event as { type?: string; is_error?: boolean }).type === "result" &&
          (event as { is_error: boolean }).is_error,
      ),
    ).toBe(true);

    const next = await turn(session, capture, "turn-2", "Please quote 2 kg to local.");
    expect([next.outcome, next.response?.text]).toEqual(["completed", "Shipping costs 9 USD."]);

    const running = knownPids(t.kit, t.captures).concat(t.pids);
    expect(running.filter(isRunning).length).toBeGreaterThanOrEqual(2); // claude, relay, server
    await session.close();
    expect(running.filter(isRunning)).toEqual([]);
  });

  test("Claude Code killed mid-turn: the turn fails with the stderr tail, health says dead", async () => {
    const { capture, session } = await openOnShipping();
    await expectKilledMidAdapterTurn(
      session,
      capture,
      t.model,
      session.pid as number,
      "Claude Code",
    );
    await session.close();
  });
});
