/**
 * A model that calls a tool the allow-list hid from it: OpenCode refuses the call itself
 * (the server gets nothing), and the call is recorded as `policy_denied`, so the turn
 * completes instead of failing as a "tool policy violation" (which is for a harness that
 * says a forbidden tool ran). Ground truth: the ledger server's own call log, the wire
 * capture, and the tools OpenCode declared to the model.
 */
import { join } from "node:path";
import { MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { callLog, ledgerServer, shippingServer } from "./support/acp";
import { startHiddenCallModel, type HiddenCallModel } from "./support/hidden-call-model";

jest.setTimeout(180_000);

let model: HiddenCallModel;
beforeEach(async () => {
  model = await startHiddenCallModel("ledger_erase_ledger", {}, "I could not erase it.");
});
afterEach(async () => {
  await model.close();
});

/** Every function name OpenCode declared to the model. */
function declared(): string[] {
  return [
    ...new Set(
      model.requests.flatMap((body) =>
        (Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]) : []).map(
          (tool) => tool.function?.name ?? "",
        ),
      ),
    ),
  ].sort();
}

test("opencode: a call of a tool the allow-list hid is refused by OpenCode, recorded as policy_denied, and the turn completes", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const dir = await kit.tempDir("m3-log-");
  const logs = { shipping: join(dir, "shipping.jsonl"), ledger: join(dir, "ledger.jsonl") };
  const [agent] = kit.agents([
    { harness: "opencode", models: ["hidden-1"], provider: model.provider },
  ]);
  const session = agent!.session({
    servers: [shippingServer(logs.shipping), ledgerServer(logs.ledger)],
    tools: ["shipping:shipping_quote", "ledger:read_ledger"],
    timeout: 120_000,
  });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Please erase the ledger.", { timeout: 120_000 });
  }
  // The tool was hidden, the model called it anyway, and nothing reached the server.
  expect(declared()).toEqual(["ledger_read_ledger", "shipping_shipping_quote"]);
  expect(callLog(logs.ledger)).toEqual([]);
  expect([turn.snapshot.outcome, turn.error]).toEqual([TurnOutcome.COMPLETED, null]);
  expect(
    turn.toolCalls.map((call) => [call.server, call.tool, call.status, call.evidence]),
  ).toEqual([["ledger", "erase_ledger", "policy_denied", "reported"]]);
  expect(session.result).toHaveToolCall("erase_ledger", {
    server: "ledger",
    status: "policy_denied",
    evidence: "any",
    count: 1,
  });
  expect(turn.response?.text).toBe("I could not erase it.");
});
