/**
 * The session's allow-list, enforced twice: by the agent's own permission system (Gemini
 * CLI's policy file, OpenCode's permission map: a denied tool is not even offered) and by
 * the adapter, which refuses the permission requests of tools outside it. A tool outside
 * the allow-list never reaches its server: the server's own log is the ground truth.
 */
import { join } from "node:path";
import type { HarnessDefinition, ProviderDialect } from "@jest-m3/core/harness";
import { geminiHarness, opencodeHarness, type AcpSession } from "@jest-m3/harness-acp";
import {
  acpLaunch,
  callLog,
  ledgerServer,
  runTurn,
  selection,
  shippingServer,
} from "./support/acp";
import { ERASE_RULE, perTestKit, quoteRule } from "@jest-m3/test-support";

jest.setTimeout(120_000);

const t = perTestKit({
  script: {
    rules: [ERASE_RULE, quoteRule()],
  },
  model: "each",
});

/** The tools offered with the first model request that offered any (not a title request). */
function offered(): readonly string[] | undefined {
  return t.model.journal.entries.find((entry) => (entry.conversation?.offeredTools.length ?? 0) > 0)
    ?.conversation?.offeredTools;
}

async function open(
  harness: HarnessDefinition,
  dialect: ProviderDialect,
  options: Record<string, unknown>,
) {
  const dir = await t.kit.tempDir("m3-log-");
  const logs = { shipping: join(dir, "shipping.jsonl"), ledger: join(dir, "ledger.jsonl") };
  const { launch, capture, events } = await acpLaunch(
    t.kit,
    selection(harness.name, t.model.providerFor(dialect), { options }),
    [shippingServer(logs.shipping), ledgerServer(logs.ledger)],
    ["shipping:shipping_quote", "ledger:read_ledger"],
  );
  t.captures.push(capture);
  const session = (await harness.open(launch)) as AcpSession;
  t.pids.push(session.pid as number);
  return { session, capture, events, logs };
}

test("gemini: tools outside the allow-list are not even offered to the model", async () => {
  const { session, capture, logs } = await open(geminiHarness, "gemini", {});
  const turn = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
  expect(turn.outcome).toBe("completed");
  // The scripted model names the offered tools it knows from its script.
  expect(offered()).toEqual(["shipping:shipping_quote"]);
  expect(t.model.journal.decisions.map((decision) => decision.kind)).toEqual(["tool_not_offered"]);
  expect(turn.toolCalls).toEqual([]);
  expect(capture.trace.toolCalls).toEqual([]);
  expect(callLog(logs.ledger)).toEqual([]);
});

describe.each([
  ["gemini", geminiHarness, "gemini"],
  ["opencode", opencodeHarness, "chat-completions"],
] as const)("%s with exposeDisallowedTools", (_name, harness, dialect: ProviderDialect) => {
  test("a denied tool asks, is refused and recorded, and never reaches its server; an allowed one runs", async () => {
    const { session, capture, events, logs } = await open(harness, dialect, {
      exposeDisallowedTools: true,
    });
    const denied = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
    expect([denied.outcome, denied.error]).toEqual(["completed", null]);
    expect(offered()).toContain("ledger:erase_ledger");
    expect(denied.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
      ["ledger", "erase_ledger", "policy_denied"],
    ]);
    expect(events).toContainEqual({
      kind: "approval",
      detail: "declined ledger:erase_ledger (not in the session's allow-list)",
    });
    const allowed = await runTurn(session, capture, "turn-2", "Please quote.");
    expect(allowed.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
      ["shipping", "shipping_quote", "success"],
    ]);
    // The servers' own logs: the denied call never arrived, the allowed one did.
    expect(callLog(logs.ledger)).toEqual([]);
    expect(callLog(logs.shipping).map((entry) => entry.tool)).toEqual(["shipping_quote"]);
    expect(capture.trace.toolCalls.map((call) => [call.tool, call.status])).toEqual([
      ["shipping_quote", "success"],
    ]);
  });
});
