/**
 * Elicitation through Codex: a real MCP server (the SDK's, built with mockServer) asks for
 * input in the middle of a tool call; Codex 0.171 passes it to the adapter as
 * mcpServer/elicitation/request; the session's plan answers; the server gets the answer.
 * The scripted model drives the real Codex binary.
 */
import { ExecutionOutcome, elicitationsOf } from "@jest-m3/core";
import { deskPerTest, turnsOf } from "@jest-m3/test-support";
import codexHarness, { stopWarmAppServers } from "@jest-m3/harness-codex";
import { expect } from "jest-m3";

describe("elicitation through Codex", () => {
  const t = deskPerTest(codexHarness, (model) => ({
    harness: "codex",
    models: ["scripted"],
    provider: model.provider,
  }));

  test("accept with content reaches the server; the matcher finds it in its turn", async () => {
    const agent = t.agent();
    expect((await agent.readiness()).capabilities.elicitation).toEqual({ status: "ready" });
    const session = await t.deskSession(
      {
        rules: [
          { when: { message: "seat" }, answer: { action: "accept", content: { seat: "12A" } } },
        ],
      },
      agent,
    );
    const {
      turns: [first, second],
      result,
    } = await turnsOf(session, ["Please book asking seat.", "Please book asking seat."]);
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    // The server's own reply says what it received; Codex read it back to the t.model.
    expect(first.response?.text).toBe('server got seat=accept:{"seat":"12A"}');
    expect(t.desk.calls.map((call) => call.result?.content)).toEqual([
      [{ type: "text", text: 'server got seat=accept:{"seat":"12A"}' }],
      [{ type: "text", text: 'server got seat=accept:{"seat":"12A"}' }],
    ]);
    expect(result).toHaveElicitation({
      server: "desk",
      mode: "form",
      message: "Which seat?",
      action: "accept",
      content: { seat: "12A" },
      turn: first,
      count: 1,
    });
    expect(result).toHaveElicitation({ action: "accept", turn: second, count: 1 });
    expect(result).toHaveElicitation({ count: 2 });
    expect(
      result.trace.events.filter((event) => event.detail.startsWith("elicitation from desk")),
    ).toEqual([
      expect.objectContaining({
        kind: "approval",
        detail: 'elicitation from desk (form "Which seat?"): accept with seat (rule 1)',
      }),
      expect.objectContaining({ kind: "approval" }),
    ]);
  });

  test("decline and cancel reach the server, one after the other, from rules with times", async () => {
    const session = await t.deskSession({
      rules: [
        { answer: { action: "decline" }, times: 1 },
        { answer: () => ({ action: "cancel" }), times: 1 },
      ],
    });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("Please book asking seat,meal.");
    }
    expect(turn.response?.text).toBe("server got seat=decline meal=cancel");
    expect(t.desk.calls).toHaveLength(1);
    expect(session.result).toHaveElicitation({
      message: "seat",
      action: "decline",
      turn,
      count: 1,
    });
    expect(session.result).toHaveElicitation({ message: "meal", action: "cancel", turn, count: 1 });
    expect(() => expect(session.result).toHaveElicitation({ action: "accept" })).toThrow(
      /Elicitations observed:[\s\S]*desk: form "Which seat\?" → decline/,
    );
  });

  test("an elicitation the plan does not expect is declined and recorded; so is one past the round limit", async () => {
    const session = await t.deskSession({
      rules: [{ when: { message: "seat" }, answer: { action: "accept", content: { seat: "1C" } } }],
      roundLimit: 2,
    });
    let first, second;
    {
      await using open = await session.open();
      first = await open.send("Please book asking meal.");
      // Three in one turn: the third is past the limit of 2. Rounds count per turn.
      second = await open.send("Please book asking seat,seat,seat.");
    }
    expect(first.response?.text).toBe("server got meal=decline");
    expect(second.response?.text).toBe(
      'server got seat=accept:{"seat":"1C"} seat=accept:{"seat":"1C"} seat=decline',
    );
    const events = session.result.trace.events.map((event) => event.detail);
    expect(events).toContain(
      'elicitation from desk (form "Which meal?"): decline (declined: no rule of the plan matches)',
    );
    expect(events).toContain(
      'elicitation from desk (form "Which seat?"): decline (declined: more than the plan\'s roundLimit of 2 in one turn)',
    );
    expect(session.result).toHaveElicitation({ message: "meal", action: "decline", turn: first });
    expect(elicitationsOf(session.result).map((entry) => entry.action)).toEqual([
      "decline",
      "accept",
      "accept",
      "decline",
    ]);
  });

  test("warm app-servers: each session's own plan answers its own thread's elicitations", async () => {
    const agent = t.agent({ warm: true });
    const seats = ["3C", "4D"];
    const sessions = await Promise.all(
      seats.map((seat) => t.deskSession({ action: "accept", content: { seat } }, agent)),
    );
    const replies: (string | undefined)[] = [];
    try {
      for (const session of sessions) {
        await using open = await session.open();
        replies.push((await open.send("Please book asking seat.")).response?.text);
      }
    } finally {
      // The warm pool outlives kits by design: stop it, or its app-server stays a child of
      // this worker for the next test file.
      await stopWarmAppServers();
    }
    expect(replies).toEqual([
      'server got seat=accept:{"seat":"3C"}',
      'server got seat=accept:{"seat":"4D"}',
    ]);
    expect(sessions[1]!.result).toHaveElicitation({ content: { seat: "4D" }, count: 1 });
  });

  test("URL mode: the plan's rule for the URL answers, and the server hears it", async () => {
    const session = await t.deskSession({
      rules: [{ when: { mode: "url", url: /login/ }, answer: { action: "accept" } }],
    });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("Please book asking login.");
    }
    // Codex itself puts an empty content object on a URL-mode accept.
    expect(turn.response?.text).toBe("server got login=accept:{}");
    expect(session.result).toHaveElicitation({ mode: "url", action: "accept", turn, count: 1 });
  });

  test("without a plan, Codex's adapter declines as before, and the decline is on the wire", async () => {
    const session = await t.deskSession();
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("Please book asking seat.");
    }
    expect(turn.response?.text).toBe("server got seat=decline");
    expect(session.result).toHaveElicitation({ action: "decline", turn, count: 1 });
  });

  test("a bad plan is an InvalidArgument at agent.session(), before anything starts", () => {
    const agent = t.agent();
    const server = { name: "desk", command: process.execPath };
    expect(() =>
      agent.session({
        server,
        elicitation: { rules: [{ answer: { action: "agree" } }] } as never,
      }),
    ).toThrow(
      expect.objectContaining({
        code: "M3_INVALID_ARGUMENT",
        message: expect.stringContaining(
          'agent.session(): elicitation.rules[0].answer.action must be "accept", "decline" or "cancel"',
        ),
      }),
    );
    expect(() => agent.session({ server, elicitation: "yes" as never })).toThrow(
      /agent.session\(\): elicitation must be an elicitation plan/,
    );
    expect(t.kit.processes).toEqual([]);
  });
});
