/**
 * The Codex adapter over the real binary, the scripted model and the real shipping server:
 * multi-turn sessions, provider failures, interrupts, and an app-server that dies.
 */
import { join } from "node:path";
import { MCPTestKit, type WireCapture } from "@jest-m3/core";
import codexHarness from "@jest-m3/harness-codex";
import type { CodexSession } from "../src/session";
import { startScriptedModel, type Script, type ScriptedModel } from "@jest-m3/scripted-model";
import {
  callLog,
  closeAndExpectNoProcessLeft,
  codexLaunch,
  codexSelection,
  isRunning,
  knownPids,
  runTurn as turn,
  shippingServer,
  turnRequest,
  waitFor,
} from "./support/codex";

const script: Script = {
  rules: [
    {
      name: "quote",
      when: { user: /quote (\d+(?:\.\d+)?) kg to (\w+)/i },
      steps: [
        {
          call: "shipping:shipping_quote",
          args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
        },
        { reply: "Shipping costs {{result.amount}} {{result.currency}}." },
      ],
    },
    { name: "unauthorized", when: { user: "fail" }, steps: [{ http: 401, message: "bad key" }] },
    { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
  ],
};

describe("Codex sessions (real codex app-server, scripted model, real MCP server)", () => {
  let model: ScriptedModel;
  let kit: MCPTestKit;
  let pids: number[];
  let captures: WireCapture[];

  beforeEach(async () => {
    model = await startScriptedModel(script);
    kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    pids = [];
    captures = [];
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit, [...pids, ...knownPids(kit, captures)]);
    await model.close();
  });

  test("two turns on one thread, one successful shipping_quote each: wire = server log = reported", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture, events } = await codexLaunch(
      kit,
      codexSelection(model.provider),
      [shippingServer(log)],
      ["shipping:shipping_quote"],
    );
    captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    pids.push(session.pid as number);
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);

    const first = await turn(session, capture, "turn-1", "Please quote 2 kg to local.");
    const second = await turn(session, capture, "turn-2", "Please quote 3 kg to regional.");

    expect([first.outcome, first.error]).toEqual(["completed", null]);
    expect([second.outcome, second.error]).toEqual(["completed", null]);
    expect(first.response).toEqual({ text: "Shipping costs 9 USD." });
    expect(second.response).toEqual({ text: "Shipping costs 15.5 USD." });

    // Same thread for both turns: the session id, and the thread of every completed turn.
    const threads = [first, second].flatMap((entry) =>
      entry.events
        .filter((event) => (event as { method?: string }).method === "turn/completed")
        .map((event) => (event as { params: { threadId: string } }).params.threadId),
    );
    expect(threads).toEqual([session.id, session.id]);

    const expected = [
      { weight_kg: 2, zone: "local", amount: 9 },
      { weight_kg: 3, zone: "regional", amount: 15.5 },
    ];
    expected.forEach(({ weight_kg, zone, amount }, index) => {
      const reported = [first, second][index]!.toolCalls;
      expect(reported).toEqual([
        expect.objectContaining({
          id: expect.stringMatching(/^call_/),
          server: "shipping",
          tool: "shipping_quote",
          arguments: { weight_kg, zone },
          status: "success",
          result: expect.objectContaining({ structuredContent: { amount, currency: "USD" } }),
        }),
      ]);
      const wire = capture.trace.toolCalls.filter((call) => call.turnId === `turn-${index + 1}`);
      expect(
        wire.map((call) => ({
          server: call.server,
          tool: call.tool,
          args: call.arguments,
          status: call.status,
        })),
      ).toEqual([
        {
          server: "shipping",
          tool: "shipping_quote",
          args: { weight_kg, zone },
          status: "success",
        },
      ]);
    });
    expect(callLog(log)).toEqual(
      expected.map(({ weight_kg, zone }) => ({
        tool: "shipping_quote",
        arguments: { weight_kg, zone },
      })),
    );
    // shipping_quote is read-only: Codex asked no approval; startup did not hit the network.
    expect(events.filter((event) => event.kind === "approval")).toEqual([]);
    model.journal.assertNoProblems();
    expect(model.journal.entries.map((entry) => entry.conversation?.offeredTools)).toEqual([
      ["shipping:shipping_quote"],
      ["shipping:shipping_quote"],
      ["shipping:shipping_quote"],
      ["shipping:shipping_quote"],
    ]);

    await session.close();
    expect(session.health().alive).toBe(false);
    await session.close(); // idempotent
    expect(knownPids(kit, captures).concat(pids).filter(isRunning)).toEqual([]);
  });

  test("a provider failure fails turn 1 with Codex's message; turn 2 on the same thread succeeds", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture } = await codexLaunch(kit, codexSelection(model.provider), [
      shippingServer(log),
    ]);
    captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    pids.push(session.pid as number);

    const failed = await turn(session, capture, "turn-1", "This request will fail.");
    expect(failed.outcome).toBe("failed");
    expect(failed.error).toMatch(/401 Unauthorized: bad key/);
    expect(failed.toolCalls).toEqual([]);
    expect(session.health()).toEqual({ alive: true });

    const recovered = await turn(session, capture, "turn-2", "Please quote 2 kg to local.");
    expect([recovered.outcome, recovered.error]).toEqual(["completed", null]);
    expect(recovered.response?.text).toBe("Shipping costs 9 USD.");
    expect(recovered.toolCalls.map((call) => call.status)).toEqual(["success"]);
    expect(callLog(log)).toHaveLength(1);
  });

  test("a hanging model: abort → turn/interrupt → interrupted; close leaves no process", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture } = await codexLaunch(kit, codexSelection(model.provider), [
      shippingServer(log),
    ]);
    captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    pids.push(session.pid as number);

    const { request, abort } = turnRequest("Please hang.", "turn-1");
    capture.beginTurn("turn-1");
    const sent = session.send(request);
    await waitFor(() => model.journal.entries.length > 0, "the model request");
    const abortedAt = Date.now();
    abort.abort("timeout");
    const interrupted = await sent;
    await capture.endTurn();
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    expect(interrupted.outcome).toBe("interrupted");
    expect(
      interrupted.events.some(
        (event) =>
          (event as { method?: string; params?: { turn?: { status?: string } } }).method ===
            "turn/completed" &&
          (event as { params: { turn: { status: string } } }).params.turn.status === "interrupted",
      ),
    ).toBe(true);
    expect(session.health().alive).toBe(true);

    const running = knownPids(kit, captures).concat(pids);
    expect(running.filter(isRunning).length).toBeGreaterThanOrEqual(2); // app-server, relay, server
    await session.close();
    expect(running.filter(isRunning)).toEqual([]);
  });

  test("the app-server killed mid-turn: the turn fails with the stderr tail, health says dead", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture } = await codexLaunch(kit, codexSelection(model.provider), [
      shippingServer(log),
    ]);
    captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    const pid = session.pid as number;
    pids.push(pid);

    capture.beginTurn("turn-1");
    const sent = session.send(turnRequest("Please hang.", "turn-1").request);
    await waitFor(() => model.journal.entries.length > 0, "the model request");
    process.kill(pid, "SIGKILL");
    const dead = await sent;
    await capture.endTurn();
    expect(dead.outcome).toBe("failed");
    expect(dead.error).toMatch(/^codex app-server exited \(signal SIGKILL\) during the turn/);
    const health = session.health();
    expect(health).toEqual({
      alive: false,
      exit: "signal SIGKILL",
      stderrTail: expect.any(String),
    });
    if (health.stderrTail) expect(dead.error).toContain(health.stderrTail);

    const after = await session.send(turnRequest("Please quote 2 kg to local.", "turn-2").request);
    expect(after.outcome).toBe("failed");
    expect(after.error).toMatch(/codex app-server is not running \(signal SIGKILL\)/);
    await session.close();
  });
});
