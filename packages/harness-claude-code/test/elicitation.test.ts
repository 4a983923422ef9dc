/**
 * Elicitation through Claude Code: a real MCP server (the SDK's, built with mockServer)
 * asks for input in the middle of a tool call; Claude Code 2.1.332 in stream-json mode asks
 * its SDK host (the adapter) with an `elicitation` control request; the session's plan
 * answers; the server gets the answer. The scripted model drives the real binary.
 */
import { ExecutionOutcome, expect } from "jest-m3";
import { deskPerTest, turnsOf } from "@jest-m3/test-support";
import claudeCodeHarness from "@jest-m3/harness-claude-code";

jest.setTimeout(60_000);

describe("elicitation through Claude Code", () => {
  const t = deskPerTest(claudeCodeHarness, (model) => ({
    harness: "claude-code",
    models: ["scripted-model"],
    provider: model.providerFor("anthropic-messages"),
  }));

  test("accept with content, decline, cancel and an unplanned one reach the server, per turn", async () => {
    const claude = t.agent();
    expect((await claude.readiness()).capabilities.elicitation).toEqual({ status: "ready" });
    const session = await t.deskSession(
      {
        rules: [
          { when: { message: "seat" }, answer: { action: "accept", content: { seat: "12A" } } },
          { when: { message: "meal" }, answer: { action: "decline" } },
          { when: { message: "bag" }, answer: () => ({ action: "cancel" }) },
        ],
      },
      claude,
    );
    const {
      turns: [first, second],
      result,
    } = await turnsOf(session, ["Please book asking seat.", "Please book asking meal,bag,pet."]);
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(first.response?.text).toBe('server got seat=accept:{"seat":"12A"}');
    expect(second.response?.text).toBe("server got meal=decline bag=cancel pet=decline");
    expect(t.desk.calls).toHaveLength(2);
    expect(result).toHaveElicitation({
      message: "Which seat?",
      action: "accept",
      content: { seat: "12A" },
      turn: first,
      count: 1,
    });
    expect(result).toHaveElicitation({ action: "decline", turn: second, count: 2 });
    expect(result).toHaveElicitation({ action: "cancel", turn: second, count: 1 });
    expect(result.trace.events.map((event) => event.detail)).toContain(
      'elicitation from desk (form "Which pet?"): decline (declined: no rule of the plan matches)',
    );
  });

  test("without a plan, the adapter declines and says so", async () => {
    const session = await t.deskSession();
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("Please book asking seat.");
    }
    expect(turn.response?.text).toBe("server got seat=decline");
    expect(session.result).toHaveElicitation({ action: "decline", turn, count: 1 });
    expect(session.result.trace.events.map((event) => event.detail)).toContain(
      "declined an elicitation from MCP server desk: the session has no elicitation plan",
    );
  });
});
