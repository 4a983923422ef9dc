/**
 * An ACP session's start and close on the real Gemini CLI and OpenCode (the scripted model,
 * real MCP servers):
 * - an MCP server that exits at start fails `open()` with `M3_HARNESS_START`, naming the
 *   server and carrying its own stderr, although both agents go on without the server (and
 *   would answer the first turn without its tools); nothing is left running;
 * - Gemini CLI's close does not wait on the MCP children it leaves behind as zombies: it
 *   ends within the grace period, and nothing of the session runs afterwards (ground truth:
 *   /proc).
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { HarnessStartError } from "@jest-m3/core";
import {
  callLog,
  closeAndExpectNoProcessLeft,
  descendants,
  isRunning,
  ledgerServer,
  shippingServer,
} from "./support/acp";
import { groupRunning, useScriptedModel, quoteRule } from "@jest-m3/test-support";

jest.setTimeout(180_000);

const model = useScriptedModel({ rules: [quoteRule("Quoted.", "quote 2 kg")] });

test.each([
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
] as const)(
  "%s: an MCP server that exits at start fails open(), naming it, with its stderr",
  async (harness, dialect) => {
    const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    const log = join(await kit.tempDir("m3-log-"), "ledger.jsonl");
    const [agent] = kit.agents([
      { harness, models: ["scripted-1"], provider: model.providerFor(dialect) },
    ]);
    const requests = model.journal.entries.length;
    const session = agent!.session({
      server: ledgerServer(log, ["--exit-at-start"]),
      timeout: 120_000,
    });
    const error = await session.open().catch((caught: unknown) => caught);
    const seen = kit.processes.map((child) => child.pid);
    expect(error).toBeInstanceOf(HarnessStartError);
    const message = (error as Error).message;
    expect(message).toContain('MCP server "ledger" failed to start: the server process exited');
    expect(message).toContain("Every server must be ready before the first turn");
    expect(message).toContain('--- server "ledger" stderr (last lines) ---');
    expect(message).toContain("cannot open /nonexistent/ledger.db");
    expect(session.result).toHaveOutcome(ExecutionOutcome.FAILED);
    expect(session.result.error).toMatchObject({ code: "M3_HARNESS_START" });
    expect(session.result.turns).toEqual([]);
    // No turn reached the model, and the server was never called.
    expect(model.journal.entries.length).toBe(requests);
    expect(callLog(log)).toEqual([]);
    await closeAndExpectNoProcessLeft(kit, seen);
  },
);

test("Gemini CLI's close does not wait on the zombies it leaves; nothing of the session runs after it", async () => {
  const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const log = join(await kit.tempDir("m3-log-"), "shipping.jsonl");
  const [agent] = kit.agents([
    {
      harness: "gemini",
      models: ["scripted-1"],
      provider: model.providerFor("gemini"),
      options: { warm: false }, // the session's own process, whose children it leaves
    },
  ]);
  const session = agent!.session({ server: shippingServer(log), timeout: 120_000 });
  await session.open();
  const turn = await session.send("Please quote 2 kg.", { timeout: 120_000 });
  expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(callLog(log)).toHaveLength(1);
  const gemini = kit.processes.find((child) => child.label.includes("(gemini)"));
  expect(gemini).toBeDefined();
  // Gemini CLI, the relay in front of the server, and the server.
  const tree = [gemini!.pid, ...descendants(gemini!.pid)];
  expect(tree.length).toBeGreaterThanOrEqual(3);
  const started = Date.now();
  await session.close();
  const took = Date.now() - started;
  expect(session.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  // Waiting on the zombies ran out the 2 s grace period (1.7 s median, on a quiet machine).
  expect(took).toBeLessThan(1500);
  expect(tree.filter(isRunning)).toEqual([]);
  expect(groupRunning(gemini!.pid)).toEqual([]);
  await closeAndExpectNoProcessLeft(kit, tree);
});
