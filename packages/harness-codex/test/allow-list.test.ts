/**
 * The session's allow-list, three layers deep: hidden from Codex (`enabled_tools`), declined
 * when Codex asks for approval, and refused at the wire by the capture. A tool outside the
 * allow-list never reaches its server.
 */
import { join } from "node:path";
import { InvalidToolPolicy } from "@jest-m3/core";
import codexHarness from "@jest-m3/harness-codex";
import type { CodexSession } from "../src/session";
import {
  callLog,
  codexLaunch,
  codexSelection,
  ledgerServer,
  shippingServer,
  turnRequest,
} from "./support/codex";
import { ERASE_RULE, ledgerRule, perTestKit } from "@jest-m3/test-support";

describe("the allow-list with Codex", () => {
  const t = perTestKit({
    script: {
      rules: [
        ledgerRule(["record_entry", "erase_ledger", "read_ledger"], "Done: {{results.0}}"),
        ERASE_RULE,
      ],
    },
    model: "each",
  });

  test("an entry naming a tool the server does not list fails open with a did-you-mean, before any turn", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const [agent] = t.kit.agents([
      { harness: "codex", models: ["scripted"], provider: t.model.provider },
    ]);
    const session = agent!.session({
      server: shippingServer(join(dir, "shipping.jsonl")),
      tools: ["shipping:shiping_quote"],
      timeout: 60_000,
    });
    const error = await session.open().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidToolPolicy);
    expect((error as Error).message).toContain(
      'Tool allow-list entry "shipping:shiping_quote" names a tool server "shipping" does not have: ' +
        "its tools/list offered shipping_quote",
    );
    expect((error as Error).message).toContain('Did you mean "shipping:shipping_quote"?');
    expect(session.result.snapshot.outcome).toBe("failed");
    expect(session.result.error?.code).toBe("M3_INVALID_TOOL_POLICY");
    expect(t.model.journal.entries).toEqual([]);
  });

  test("by default, tools outside the allow-list are not even offered to the model", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const { launch, capture } = await codexLaunch(
      t.kit,
      codexSelection(t.model.provider),
      [shippingServer(join(dir, "shipping.jsonl")), ledgerServer(join(dir, "ledger.jsonl"))],
      ["shipping:shipping_quote"],
    );
    t.captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    t.pids.push(session.pid as number);

    capture.beginTurn("turn-1");
    const turn = await session.send(turnRequest("Please erase the ledger.", "turn-1").request);
    await capture.endTurn();

    expect(turn.outcome).toBe("completed");
    expect(turn.toolCalls).toEqual([]);
    expect(t.model.journal.entries[0]?.conversation?.offeredTools).toEqual([
      "shipping:shipping_quote",
    ]);
    expect(t.model.journal.decisions.map((decision) => decision.kind)).toEqual([
      "tool_not_offered",
    ]);
    expect(capture.trace.toolCalls).toEqual([]);
    expect(callLog(join(dir, "ledger.jsonl"))).toEqual([]);
  });

  test("exposed anyway: an allowed call is approved, a disallowed one is declined or refused at the wire, and never reaches the server", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const ledgerLog = join(dir, "ledger.jsonl");
    const { launch, capture, events } = await codexLaunch(
      t.kit,
      codexSelection(t.model.provider, { options: { exposeDisallowedTools: true } }),
      [shippingServer(join(dir, "shipping.jsonl")), ledgerServer(ledgerLog)],
      ["shipping:shipping_quote", "ledger:record_entry"],
    );
    t.captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    t.pids.push(session.pid as number);

    capture.beginTurn("turn-1");
    const turn = await session.send(turnRequest("Update the ledger.", "turn-1").request);
    await capture.endTurn();

    expect([turn.outcome, turn.error]).toEqual(["completed", null]);
    expect(turn.response?.text).toBe("Done: recorded #1");
    expect(
      turn.toolCalls.map((call) => ({ tool: call.tool, status: call.status, error: call.error })),
    ).toEqual([
      { tool: "record_entry", status: "success", error: undefined },
      // Codex asked; the adapter declined from the allow-list.
      { tool: "erase_ledger", status: "policy_denied", error: "user rejected MCP tool call" },
      // Read-only: Codex did not ask; the wire capture refused it.
      {
        tool: "read_ledger",
        status: "policy_denied",
        error: expect.stringContaining("denied by the test's tool policy"),
      },
    ]);
    expect(events.filter((event) => event.kind === "approval")).toEqual([
      { kind: "approval", detail: "accepted ledger:record_entry (in the session's allow-list)" },
      {
        kind: "approval",
        detail: "declined ledger:erase_ledger (not in the session's allow-list)",
      },
    ]);
    expect(callLog(ledgerLog)).toEqual([{ tool: "record_entry", arguments: { text: "parcel 7" } }]);
    expect(
      capture.trace.toolCalls.map((call) => ({
        tool: call.tool,
        status: call.status,
        turn: call.turnId,
      })),
    ).toEqual([
      { tool: "record_entry", status: "success", turn: "turn-1" },
      { tool: "read_ledger", status: "policy_denied", turn: "turn-1" },
    ]);
    expect(t.model.journal.entries[0]?.conversation?.offeredTools).toEqual(
      expect.arrayContaining(["ledger:erase_ledger", "ledger:read_ledger", "ledger:record_entry"]),
    );
  });
});
