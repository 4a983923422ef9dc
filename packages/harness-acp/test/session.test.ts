/**
 * The ACP adapter on the real Gemini CLI and OpenCode, the scripted model in each agent's
 * dialect and the real shipping server. One session per agent lives through everything a
 * session must survive (OpenCode takes seconds to start): a successful turn, a provider
 * failure, a turn cancelled mid-model-call, another success, and the agent killed mid-turn.
 */
import { join } from "node:path";
import type { HarnessDefinition, ProviderDialect } from "@jest-m3/core/harness";
import { geminiHarness, opencodeHarness, type AcpSession } from "@jest-m3/harness-acp";
import {
  acpLaunch,
  callLog,
  descendants,
  isRunning,
  knownPids,
  runTurn,
  selection,
  shippingServer,
  turnRequest,
  waitFor,
} from "./support/acp";
import { perTestKit, quoteKgRule } from "@jest-m3/test-support";

jest.setTimeout(180_000);

const cases: [string, HarnessDefinition, ProviderDialect, RegExp, number][] = [
  // name, harness, dialect, the provider failure as the agent words it, approvals per call
  ["Gemini CLI", geminiHarness, "gemini", /scripted bad request|400/, 1],
  ["OpenCode", opencodeHarness, "chat-completions", /scripted bad request|Bad Request|400/, 0],
];

describe.each(cases)("%s over ACP", (agent, harness, dialect, providerFailure, approvals) => {
  const t = perTestKit({
    script: {
      rules: [
        quoteKgRule("Quoted {{match.1}} kg to {{match.2}}."),
        {
          name: "fail",
          when: { user: "fail" },
          steps: [1, 2, 3, 4].map(() => ({ http: 400, message: "scripted bad request" })),
        },
        { name: "hang", when: { user: "hang" }, steps: [{ hang: true }, { hang: true }] },
      ],
    },
    model: "each",
  });

  test("one session: success, provider failure, cancel, success, then the agent killed mid-turn", async () => {
    const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture, events } = await acpLaunch(
      t.kit,
      selection(harness.name, t.model.providerFor(dialect)),
      [shippingServer(log)],
      ["shipping:shipping_quote"],
    );
    t.captures.push(capture);
    const session = (await harness.open(launch)) as AcpSession;
    const pid = session.pid as number;
    t.pids.push(pid);

    // 1. A tool call: reported = wire = the server's own log.
    const first = await runTurn(session, capture, "turn-1", "Please quote 2 kg to local.");
    t.pids.push(...descendants(pid));
    expect([first.outcome, first.error]).toEqual(["completed", null]);
    expect(first.response).toEqual({ text: "Quoted 2 kg to local." });
    expect(first.toolCalls).toEqual([
      expect.objectContaining({
        server: "shipping",
        tool: "shipping_quote",
        arguments: { weight_kg: 2, zone: "local" },
        status: "success",
        result: { content: [{ type: "text", text: "Quote calculated" }] },
      }),
    ]);
    const wire = capture.trace.toolCalls.filter((call) => call.turnId === "turn-1");
    expect(wire.map((call) => [call.server, call.tool, call.arguments, call.status])).toEqual([
      ["shipping", "shipping_quote", { weight_kg: 2, zone: "local" }, "success"],
    ]);
    expect(events.filter((event) => event.kind === "approval")).toHaveLength(approvals);

    // 2. The provider fails the turn; the session stays usable.
    const failed = await runTurn(session, capture, "turn-2", "This request will fail.");
    expect(failed.outcome).toBe("failed");
    expect(failed.error).toMatch(providerFailure);
    expect(failed.toolCalls).toEqual([]);
    expect(session.health()).toEqual({ alive: true });

    // 3. A turn cancelled while the model hangs: session/cancel, the agent confirms.
    const { request, abort } = turnRequest("Please hang.", "turn-3");
    capture.beginTurn("turn-3");
    const sent = session.send(request);
    const before = t.model.journal.entries.length;
    await waitFor(() => t.model.journal.entries.length > before, "the model request");
    const abortedAt = Date.now();
    abort.abort("timeout");
    const cancelled = await sent;
    await capture.endTurn();
    expect(Date.now() - abortedAt).toBeLessThan(3000);
    expect(cancelled.outcome).toBe("interrupted");
    expect(session.health().alive).toBe(true);

    // 4. The session works after the failure and the cancel, on the same id.
    const second = await runTurn(session, capture, "turn-4", "Please quote 3 kg to regional.");
    expect([second.outcome, second.error]).toEqual(["completed", null]);
    expect(second.toolCalls.map((call) => [call.arguments, call.status])).toEqual([
      [{ weight_kg: 3, zone: "regional" }, "success"],
    ]);
    expect(callLog(log).map((entry) => entry.arguments)).toEqual([
      { weight_kg: 2, zone: "local" },
      { weight_kg: 3, zone: "regional" },
    ]);

    // 5. The agent killed mid-turn: the turn fails with how it died; health says dead.
    capture.beginTurn("turn-5");
    const dying = session.send(turnRequest("Please hang.", "turn-5").request);
    const count = t.model.journal.entries.length;
    await waitFor(() => t.model.journal.entries.length > count, "the model request");
    process.kill(pid, "SIGKILL");
    const dead = await dying;
    await capture.endTurn();
    expect(dead.outcome).toBe("failed");
    expect(dead.error).toMatch(new RegExp(`^${agent} exited \\(signal SIGKILL\\) during the turn`));
    expect(session.health()).toEqual(
      expect.objectContaining({ alive: false, exit: "signal SIGKILL" }),
    );
    const after = await session.send(turnRequest("Please quote 2 kg to local.", "turn-6").request);
    expect(after.outcome).toBe("failed");
    expect(after.error).toMatch(new RegExp(`${agent} is not running \\(signal SIGKILL\\)`));

    await session.close();
    await session.close(); // idempotent
    expect(session.health().alive).toBe(false);
    expect(knownPids(t.kit, t.captures).concat(t.pids).filter(isRunning)).toEqual([]);
  });
});
