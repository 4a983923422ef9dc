/**
 * The session's allow-list, three layers deep: hidden from the model (deny rules from the
 * servers' tool lists), denied when Claude Code asks permission (`can_use_tool`, answered
 * and recorded by the adapter), and refused at the wire by the capture. A tool outside the
 * allow-list never reaches its server: the server's own call log is the ground truth.
 */
import { join } from "node:path";
import claudeCodeHarness, { type ClaudeCodeSession } from "@jest-m3/harness-claude-code";
import {
  callLog,
  claudeLaunch,
  claudeSelection,
  ledgerServer,
  shippingServer,
  turn,
} from "./support/claude";
import { ERASE_RULE, ledgerRule, perTestKit } from "@jest-m3/test-support";

jest.setTimeout(60_000);

describe("the allow-list with Claude Code", () => {
  const t = perTestKit({
    script: {
      rules: [ledgerRule(["record_entry", "erase_ledger"], "Done: {{results.0}}"), ERASE_RULE],
    },
    model: "each",
  });

  test("by default, tools outside the allow-list are not even offered to the model", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const { launch, capture, events } = await claudeLaunch(
      t.kit,
      claudeSelection(t.model.providerFor("anthropic-messages")),
      [shippingServer(join(dir, "shipping.jsonl")), ledgerServer(join(dir, "ledger.jsonl"))],
      ["shipping:shipping_quote", "ledger:record_entry"],
    );
    t.captures.push(capture);
    const session = (await claudeCodeHarness.open(launch)) as ClaudeCodeSession;
    t.pids.push(session.pid as number);

    const result = await turn(session, capture, "turn-1", "Please erase it all.");

    expect(result.outcome).toBe("completed");
    expect(t.model.journal.entries[0]?.conversation?.offeredTools).toEqual([
      "ledger:record_entry",
      "shipping:shipping_quote",
    ]);
    expect(t.model.journal.decisions.map((decision) => decision.kind)).toEqual([
      "tool_not_offered",
    ]);
    expect(result.toolCalls).toEqual([]);
    expect(capture.trace.toolCalls).toEqual([]);
    expect(callLog(join(dir, "ledger.jsonl"))).toEqual([]);
    expect(events).toContainEqual({
      kind: "harness",
      detail: expect.stringMatching(/^hid 3 tool\(s\) outside the allow-list/),
    });
  });

  test("exposed anyway: an allowed call runs, a disallowed one is denied by the adapter and recorded, and never reaches the server", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const ledgerLog = join(dir, "ledger.jsonl");
    const { launch, capture, events } = await claudeLaunch(
      t.kit,
      claudeSelection(t.model.providerFor("anthropic-messages"), {
        options: { exposeDisallowedTools: true },
      }),
      [shippingServer(join(dir, "shipping.jsonl")), ledgerServer(ledgerLog)],
      ["shipping:shipping_quote", "ledger:record_entry"],
    );
    t.captures.push(capture);
    const session = (await claudeCodeHarness.open(launch)) as ClaudeCodeSession;
    t.pids.push(session.pid as number);

    const result = await turn(session, capture, "turn-1", "Update the ledger.");

    expect([result.outcome, result.error]).toEqual(["completed", null]);
    expect(result.response?.text).toBe("Done: recorded #1");
    expect(
      result.toolCalls.map((call) => ({ tool: call.tool, status: call.status, error: call.error })),
    ).toEqual([
      { tool: "record_entry", status: "success", error: undefined },
      {
        tool: "erase_ledger",
        status: "policy_denied",
        error: "ledger:erase_ledger is not in the test's tool allow-list",
      },
    ]);
    expect(events.filter((event) => event.kind === "approval")).toEqual([
      {
        kind: "approval",
        detail: "declined ledger:erase_ledger (not in the session's allow-list)",
      },
    ]);
    expect(callLog(ledgerLog)).toEqual([{ tool: "record_entry", arguments: { text: "parcel 7" } }]);
    expect(
      capture.trace.toolCalls.map((call) => ({ tool: call.tool, status: call.status })),
    ).toEqual([{ tool: "record_entry", status: "success" }]);
    expect(t.model.journal.entries[0]?.conversation?.offeredTools).toEqual(
      expect.arrayContaining(["ledger:erase_ledger", "ledger:read_ledger", "ledger:record_entry"]),
    );
  });

  test("tools: [] hides every server's tools; a server outside the allow-list is denied as a whole", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const { launch, capture } = await claudeLaunch(
      t.kit,
      claudeSelection(t.model.providerFor("anthropic-messages")),
      [ledgerServer(join(dir, "ledger.jsonl"))],
      [],
    );
    t.captures.push(capture);
    const session = (await claudeCodeHarness.open(launch)) as ClaudeCodeSession;
    t.pids.push(session.pid as number);
    const result = await turn(session, capture, "turn-1", "Please erase it all.");
    expect(result.outcome).toBe("completed");
    expect(t.model.journal.entries[0]?.conversation?.offeredTools).toEqual([]);
    expect(callLog(join(dir, "ledger.jsonl"))).toEqual([]);
  });
});
