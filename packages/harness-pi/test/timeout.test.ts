/**
 * A turn past its budget on Pi: the model never answers (a scripted hang), core's timeout
 * aborts the turn, the adapter sends Pi `abort`, and the turn ends `timed_out` in seconds
 * with a readable error; the session is finished `timed_out` and neither Pi nor its MCP
 * server (nor the relay) is left running, as `ps` sees it.
 */
import type { AgentSelection, SessionOptions } from "@jest-m3/core";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { startScriptedModel } from "@jest-m3/scripted-model";
import { callRule, isRunning, useScriptedModel, useTempFolder } from "@jest-m3/test-support";
import { callLog, ledgerServer, piAgent, processTree, shippingServer } from "./support/pi";

jest.setTimeout(120_000);

const logs = useTempFolder("m3-pi-timeout-");
const model = useScriptedModel({
  rules: [
    { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
    { name: "first", when: { user: "first" }, steps: [{ reply: "The first reply." }] },
    {
      name: "quote",
      when: { user: "quote" },
      steps: [
        { call: "shipping:shipping_quote", args: { weight_kg: 1, zone: "local" } },
        { hang: true },
      ],
    },
  ],
});

/**
 * One turn of `prompt` with a budget of 2000 ms on a session of `agent` (90 s otherwise), the
 * session's processes in `kit` while it was open, and how long the turn took.
 */
async function turnOf2Seconds(
  kit: MCPTestKit,
  agent: AgentSelection,
  options: Pick<SessionOptions, "server" | "tools">,
  prompt: string,
) {
  const session = agent.session({ ...options, timeout: 90_000 });
  let turn;
  let pids: number[];
  let elapsed: number;
  {
    await using open = await session.open();
    pids = processTree(kit);
    const started = Date.now();
    turn = await open.send(prompt, { timeout: 2000 });
    elapsed = Date.now() - started;
  }
  return { session, turn, pids, elapsed };
}

test.each([
  ["the model hangs before any call", "hang", 0],
  ["the model hangs after a tool call", "quote", 1],
])("%s: the turn ends timed_out, readable, with no process left", async (_what, prompt, calls) => {
  const log = logs(`${prompt}.jsonl`);
  await using kit = new MCPTestKit({ env: {} });
  // Cold (`warm: false`): the session's own Pi, gone at close.
  const { session, turn, pids, elapsed } = await turnOf2Seconds(
    kit,
    piAgent(kit, model, { warm: false }),
    { server: shippingServer(log), tools: ["shipping:shipping_quote"] },
    `Please ${prompt}.`,
  );
  expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
  expect(elapsed).toBeLessThan(2000 + 10_000);
  expect(turn.error?.code).toBe("M3_TURN_TIMEOUT");
  expect(turn.error?.message).toMatch(/2000 ms/);
  expect(session.result).toHaveOutcome(ExecutionOutcome.TIMED_OUT);
  // What happened before the timeout is kept: the call that reached the server, both sides.
  expect(callLog(log)).toHaveLength(calls);
  expect(turn.toolCalls.map((call) => [call.tool, call.status, call.evidence])).toEqual(
    calls === 1 ? [["shipping_quote", "success", "both"]] : [],
  );
  expect(pids.length).toBeGreaterThanOrEqual(2);
  expect([...pids, ...processTree(kit)].filter(isRunning)).toEqual([]);
});

test("a turn past its budget during a slow MCP call: Pi aborts the call, the server is told", async () => {
  const log = logs("ledger.jsonl");
  await using slowModel = await startScriptedModel({
    rules: [callRule("wait", "ledger:wait", { ms: 20_000 }, "Waited.")],
  });
  await using kit = new MCPTestKit({ env: {} });
  const { session, turn, pids } = await turnOf2Seconds(
    kit,
    piAgent(kit, slowModel, { warm: false }),
    { server: ledgerServer(log), tools: ["ledger:wait"] },
    "Please wait.",
  );
  expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
  // The call reached the server, and the server was told to stop (notifications/cancelled):
  // it logged the cancellation long before its 20 s were up.
  expect(callLog(log)).toEqual([
    { tool: "wait", arguments: { ms: 20_000 } },
    expect.objectContaining({ cancelled: "wait" }),
  ]);
  expect(turn.toolCalls.map((call) => [call.tool, call.status])).toEqual([["wait", "cancelled"]]);
  // The wire saw the cancellation itself (not only the server's stdin closing at the end).
  const methods = session.result.trace.messages.map(
    (entry) => (entry.message as { method?: string } | undefined)?.method,
  );
  expect(methods).toContain("notifications/cancelled");
  expect([...pids, ...processTree(kit)].filter(isRunning)).toEqual([]);
});

test("a second turn that times out keeps no reply of the first", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const agent = piAgent(kit, model);
  const session = agent.session({
    server: shippingServer(logs("second.jsonl")),
    timeout: 90_000,
  });
  let first, second;
  {
    await using open = await session.open();
    first = await open.send("The first turn.");
    second = await open.send("Please hang.", { timeout: 2000 });
  }
  expect(first.response?.text).toBe("The first reply.");
  expect(second.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
  expect(second.response).toBeNull();
});
