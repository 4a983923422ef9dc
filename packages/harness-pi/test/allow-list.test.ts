/**
 * The session's allow-list on Pi, which has no approval step: the bridge extension
 * registers only the allowed tools, so a denied tool is never offered to the model (the
 * scripted model's journal shows every tool each request offered) and never reaches its
 * server (the server's own log is the ground truth); an allowed tool of the same server
 * still works. With `tools: []` the model is offered no tool at all.
 */
import { MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { callRule, ERASE_RULE, useScriptedModel, useTempFolder } from "@jest-m3/test-support";
import { callLog, isRunning, ledgerServer, piAgent, processTree } from "./support/pi";

jest.setTimeout(120_000);

const logs = useTempFolder("m3-pi-allow-", { each: true });
const model = useScriptedModel(
  {
    rules: [ERASE_RULE, callRule("record", "ledger:record_entry", { text: "lunch" }, "Recorded.")],
  },
  { each: true },
);

/** The function names each main model request offered, in order. */
function offeredNames(): string[][] {
  return model.journal.entries
    .filter((entry) => !entry.side)
    .map((entry) => {
      const body = entry.body as { tools?: { name?: string; function?: { name?: string } }[] };
      return (body.tools ?? []).map((tool) => tool.name ?? tool.function?.name ?? "?");
    });
}

test("a denied tool is not offered and never reaches the server; an allowed one does", async () => {
  const log = logs("ledger.jsonl");
  await using kit = new MCPTestKit({ env: {} });
  const agent = piAgent(kit, model);
  const session = agent.session({
    server: ledgerServer(log),
    tools: ["ledger:record_entry"],
    timeout: 90_000,
  });
  let erase, record;
  let pids: number[];
  {
    await using open = await session.open();
    erase = await open.send("Please erase the ledger.");
    record = await open.send("Please record lunch.");
    pids = processTree(kit);
  }

  // The denied tool was never offered: every request offered exactly the allowed one.
  expect(offeredNames()).toEqual(Array(offeredNames().length).fill(["mcp__ledger__record_entry"]));
  expect(offeredNames().length).toBeGreaterThanOrEqual(3);
  // The scripted model says so in its journal: the tool it was told to call was not offered.
  expect(model.journal.decisions[0]).toMatchObject({ kind: "tool_not_offered" });
  expect(erase.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(erase.toolCalls).toEqual([]);
  expect(session.result).not.toHaveToolCall("erase_ledger");

  expect(record.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(session.result).toHaveToolCall("record_entry", {
    turn: record,
    server: "ledger",
    status: "success",
    count: 1,
  });
  // Ground truth: the server received exactly the allowed call.
  expect(callLog(log)).toEqual([{ tool: "record_entry", arguments: { text: "lunch" } }]);
  expect(pids.filter(isRunning)).toEqual([]);
});

test("with tools: [] the model is offered no tool, and nothing reaches the server", async () => {
  const log = logs("ledger.jsonl");
  await using kit = new MCPTestKit({ env: {} });
  const agent = piAgent(kit, model);
  const session = agent.session({ server: ledgerServer(log), tools: [], timeout: 90_000 });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Please record lunch.");
  }
  expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(offeredNames()).toEqual([[]]);
  expect(turn.toolCalls).toEqual([]);
  expect(callLog(log)).toEqual([]);
});

test.each([
  [{}, ["mcp__ledger__record_entry"]],
  [{ builtinTools: ["read", "grep"] }, ["grep", "mcp__ledger__record_entry", "read"]],
  [{ builtinTools: "default" }, ["bash", "edit", "mcp__ledger__record_entry", "read", "write"]],
])("built-in tools are off unless the options ask: %j", async (options, expected) => {
  await using kit = new MCPTestKit({ env: {} });
  const agent = piAgent(kit, model, options);
  const session = agent.session({
    server: ledgerServer(logs("ledger.jsonl")),
    tools: ["ledger:record_entry"],
    timeout: 90_000,
  });
  {
    await using open = await session.open();
    await open.send("Please record lunch.");
  }
  expect(offeredNames().map((names) => [...names].sort())).toEqual(
    Array(offeredNames().length).fill(expected),
  );
});
