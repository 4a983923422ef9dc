/**
 * Faults on Pi, each with a readable result, nothing lost and no process left: an MCP
 * server that exits at start fails `open()` naming the server with its own stderr; Pi
 * killed mid-turn fails the turn (and the session) with how Pi ended; a provider error
 * fails the turn with the provider's words after exactly one request (no retries), and the
 * next turn on the same session completes.
 */
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { isRunning, quoteRule, useScriptedModel, useTempFolder } from "@jest-m3/test-support";
import { callLog, ledgerServer, piAgent, processTree, shippingServer } from "./support/pi";

jest.setTimeout(120_000);

const logs = useTempFolder("m3-pi-faults-", { each: true });
const model = useScriptedModel(
  {
    rules: [
      { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
      {
        name: "outage",
        when: { user: "outage" },
        steps: [{ http: 500, message: "scripted outage" }],
      },
      quoteRule("The quote is {{result.amount}} {{result.currency}}."),
    ],
  },
  { each: true },
);

/** A Pi agent; `warm: false` where a test checks the session's own Pi. */
const agentOf = (kit: MCPTestKit, options: { warm?: boolean } = {}) => piAgent(kit, model, options);

test("a server that exits at start fails open(), naming it, with its stderr", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const session = agentOf(kit, { warm: false }).session({
    server: ledgerServer(logs("ledger.jsonl"), ["--exit-at-start"]),
    timeout: 60_000,
  });
  const opening = session.open();
  await expect(opening).rejects.toThrow(/MCP server "ledger" failed to start: .+/);
  await expect(opening).rejects.toThrow("ledger: cannot open /nonexistent/ledger.db");
  expect(session.result).toHaveOutcome(ExecutionOutcome.FAILED);
  await kit.close();
  expect(processTree(kit).filter(isRunning)).toEqual([]);
});

test("Pi killed mid-turn fails the turn with how it ended; nothing is left running", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const session = agentOf(kit, { warm: false }).session({
    server: shippingServer(logs("shipping.jsonl")),
    timeout: 60_000,
  });
  let turn;
  let pids: number[];
  {
    await using open = await session.open();
    pids = processTree(kit);
    const pi = kit.processes.find((child) => child.label === "pi");
    expect(pi).toBeDefined();
    const running = open.send("Please hang.");
    // Once the model has the request, Pi is mid-turn.
    const deadline = Date.now() + 20_000;
    while (model.journal.entries.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.kill(pi!.pid, "SIGKILL");
    turn = await running;
  }
  expect(turn.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(turn.error?.message).toContain("signal SIGKILL");
  expect(session.result).toHaveOutcome(ExecutionOutcome.FAILED);
  expect([...pids, ...processTree(kit)].filter(isRunning)).toEqual([]);
});

test("a provider error fails the turn once, in the provider's words; the next turn completes", async () => {
  const log = logs("shipping.jsonl");
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const session = agentOf(kit).session({ server: shippingServer(log), timeout: 60_000 });
  let failed, next;
  {
    await using open = await session.open();
    failed = await open.send("Please report the outage.");
    expect(model.journal.entries).toHaveLength(1); // no retry: Pi's and the SDK's are off
    next = await open.send("Please quote.");
  }
  expect(failed.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(failed.error?.message).toContain("scripted outage");
  expect(next.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(next.response?.text).toBe("The quote is 9 USD.");
  expect(callLog(log)).toHaveLength(1);
  expect(session.result).toHaveToolCall("shipping_quote", { turn: next, count: 1 });
});
