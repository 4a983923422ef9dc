/**
 * The Codex adapter over the real binary, the scripted model and the real shipping server:
 * multi-turn sessions, provider failures, interrupts, and an app-server that dies.
 */
import codexHarness from "@jest-m3/harness-codex";
import type { CodexSession } from "../src/session";
import {
  codexSelection,
  isRunning,
  knownPids,
  runTurn as turn,
  shippingServer,
} from "./support/codex";
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

describe("Codex sessions (real codex app-server, scripted model, real MCP server)", () => {
  const t = perTestKit({ script: ADAPTER_SCRIPT, model: "each" });

  /** A session on the shipping server (its log new), its capture and pid checked after the test. */
  const openOnShipping = (tools?: string[]) =>
    openSession<CodexSession>(
      t,
      codexHarness,
      codexSelection(t.model.provider),
      tools,
      shippingServer,
    );

  test("two turns on one thread, one successful shipping_quote each: wire = server log = reported", async () => {
    const { log, capture, events, session } = await openOnShipping(["shipping:shipping_quote"]);
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);

    const first = await turn(session, capture, "turn-1", QUOTE_PROMPTS[0]!);
    const second = await turn(session, capture, "turn-2", QUOTE_PROMPTS[1]!);
    expectQuoteTurns([first, second], capture, log, expect.stringMatching(/^call_/));

    // Same thread for both turns: the session id, and the thread of every completed turn.
    const threads = [first, second].flatMap((entry) =>
      entry.events
        .filter((event) => (event as { method?: string }).method === "turn/completed")
        .map((event) => (event as { params: { threadId: string } }).params.threadId),
    );
    expect(threads).toEqual([session.id, session.id]);

    // shipping_quote is read-only: Codex asked no approval; startup did not hit the network.
    expect(events.filter((event) => event.kind === "approval")).toEqual([]);
    t.model.journal.assertNoProblems();
    expect(t.model.journal.entries.map((entry) => entry.conversation?.offeredTools)).toEqual([
      ["shipping:shipping_quote"],
      ["shipping:shipping_quote"],
      ["shipping:shipping_quote"],
      ["shipping:shipping_quote"],
    ]);

    await session.close();
    expect(session.health().alive).toBe(false);
    await session.close(); // idempotent
    expect(knownPids(t.kit, t.captures).concat(t.pids).filter(isRunning)).toEqual([]);
  });

  test("a provider failure fails turn 1 with Codex's message; turn 2 on the same thread succeeds", async () => {
    const { log, capture, session } = await openOnShipping();
    await expectFailureThenRecovery(session, capture, log, /401 Unauthorized: bad key/);
  });

  test("a hanging model: abort → turn/interrupt → interrupted; close leaves no process", async () => {
    const { capture, session } = await openOnShipping();
    const interrupted = await expectHangInterrupted(session, capture, t.model);
    expect(
      interrupted.events.some(
        (event) =>
          (event as { method?: string; params?: { turn?: { status?: string } } }).method ===
            "turn/completed" &&
          (event as { params: { turn: { status: string } } }).params.turn.status === "interrupted",
      ),
    ).toBe(true);

    const running = knownPids(t.kit, t.captures).concat(t.pids);
    expect(running.filter(isRunning).length).toBeGreaterThanOrEqual(2); // app-server, relay, server
    await session.close();
    expect(running.filter(isRunning)).toEqual([]);
  });

  test("the app-server killed mid-turn: the turn fails with the stderr tail, health says dead", async () => {
    const { capture, session } = await openOnShipping();
    await expectKilledMidAdapterTurn(
      session,
      capture,
      t.model,
      session.pid as number,
      "codex app-server",
    );
    await session.close();
  });
});
