/**
 * Warm Qwen Code (the default; here `options: { warm: true }`): two sessions of one worker
 * on one Qwen Code process, each its own ACP session with its own MCP server. Both servers
 * are named "shipping", so Qwen Code gives both tools one name
 * (`mcp__shipping__shipping_quote`): a process that kept session A's server would send B's
 * call there. Ground truth: each server's own call log, the process ids, and the scripted
 * model's journal.
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit } from "@jest-m3/core";
import { qwenHarness, stopWarmAcpAgents } from "@jest-m3/harness-acp";
import {
  callLog,
  childrenOf,
  childrenRunning,
  isRunning,
  useScriptedModel,
  seedRule,
  shippingServer,
} from "@jest-m3/test-support";

jest.setTimeout(240_000);

/** This worker's Qwen Code processes (a warm one outlives its kit). */
const qwenPids = (): number[] => childrenRunning(process.pid, "qwen-code");

const model = useScriptedModel(
  { rules: [seedRule("The quote for {{match.1}} kg is ready.")] },
  { after: stopWarmAcpAgents },
);

test("two sessions on one warm Qwen Code process: the same pid, and each server sees only its own session's calls", async () => {
  await stopWarmAcpAgents();
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [qwenHarness] });
  const dir = await kit.tempDir("m3-qwen-warm-");
  const select = {
    harness: "qwen-code",
    models: ["scripted-1"],
    provider: model.providerFor("chat-completions"),
    options: { warm: true },
  };
  const [agentA, agentB] = kit.agents([select, select]);
  const logA = join(dir, "a.jsonl");
  const logB = join(dir, "b.jsonl");
  const sessionA = agentA!.session({ server: shippingServer(logA), timeout: 120_000 });
  const sessionB = agentB!.session({ server: shippingServer(logB), timeout: 120_000 });

  const openA = await sessionA.open();
  const [pid] = qwenPids();
  expect(qwenPids()).toEqual([pid]);
  const childrenWithA = childrenOf(pid!);
  const turnA = await openA.send("Call shipping_quote once for weight_kg 2 in zone local.", {
    timeout: 120_000,
  });
  expect(turnA.response?.text).toBe("The quote for 2 kg is ready.");

  const openB = await sessionB.open();
  expect(qwenPids()).toEqual([pid]); // B reused A's process
  const turnB = await openB.send("Call shipping_quote once for weight_kg 3 in zone regional.", {
    timeout: 120_000,
  });
  expect(turnB.response?.text).toBe("The quote for 3 kg is ready.");

  // Each server's own log: A's server got A's call only, B's server B's only.
  expect(callLog(logA).map((call) => call.arguments)).toEqual([{ weight_kg: 2, zone: "local" }]);
  expect(callLog(logB).map((call) => call.arguments)).toEqual([{ weight_kg: 3, zone: "regional" }]);

  // B's model requests carry nothing of A's conversation.
  const seenByB = model.journal.entries
    .map((entry) => JSON.stringify(entry.body))
    .filter((body) => body.includes("weight_kg 3 in zone regional"));
  expect(seenByB.length).toBeGreaterThan(0);
  for (const body of seenByB) expect(body).not.toContain("weight_kg 2");

  await openA.close();
  // A's server (its relay, a child of the Qwen process) stopped with A; B goes on.
  expect(childrenWithA.filter(isRunning)).toEqual([]);
  const again = await openB.send("Call shipping_quote once for weight_kg 4 in zone local.", {
    timeout: 120_000,
  });
  expect(again.response?.text).toBe("The quote for 4 kg is ready.");
  await openB.close();
  expect(isRunning(pid!)).toBe(true); // warm: the process stays for the next session

  expect(callLog(logA)).toHaveLength(1);
  expect(callLog(logB).map((call) => call.arguments)).toEqual([
    { weight_kg: 3, zone: "regional" },
    { weight_kg: 4, zone: "local" },
  ]);
  expect(sessionA.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(sessionB.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(sessionB.result.trace.toolCalls.map((call) => [call.server, call.tool])).toEqual([
    ["shipping", "shipping_quote"],
    ["shipping", "shipping_quote"],
  ]);

  const left = [pid!, ...childrenOf(pid!)];
  await stopWarmAcpAgents();
  expect(left.filter(isRunning)).toEqual([]);
});
