/**
 * The ACP adapter on the real Gemini CLI, the scripted model (Chat Completions) and the real
 * shipping server: two turns on one session, a provider failure, a cancelled turn, and an
 * agent killed mid-turn.
 */
import { join } from "node:path";
import { MCPTestKit, type WireCapture } from "@jest-m3/core";
import { opencodeHarness, type AcpSession } from "@jest-m3/harness-acp";
import { startScriptedModel, type Script, type ScriptedModel } from "@jest-m3/scripted-model";
import {
  acpLaunch,
  callLog,
  closeAndExpectNoProcessLeft,
  descendants,
  isRunning,
  knownPids,
  runTurn,
  selection,
  shippingServer,
  turnRequest,
  waitFor,
} from "./support/acp";

jest.setTimeout(120_000);

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
        { reply: "Quoted {{match.1}} kg to {{match.2}}." },
      ],
    },
    { name: "unauthorized", when: { user: "fail" }, steps: [{ http: 401, message: "bad key" }] },
    { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
  ],
};

describe("OpenCode over ACP (real binary, scripted model, real MCP server)", () => {
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

  test("two turns on one session, one shipping_quote each: wire = server log = reported", async () => {
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const { launch, capture, events } = await acpLaunch(
      kit,
      selection("opencode", model.providerFor("chat-completions")),
      [shippingServer(log)],
      ["shipping:shipping_quote"],
    );
    captures.push(capture);
    const t0 = Date.now();
    const session = (await opencodeHarness.open(launch)) as AcpSession;
    const t1 = Date.now();
    pids.push(session.pid as number);

    const first = await runTurn(session, capture, "turn-1", "Please quote 2 kg to local.");
    const second = await runTurn(session, capture, "turn-2", "Please quote 3 kg to regional.");
    const t2 = Date.now();
    pids.push(...descendants(session.pid as number));

    expect([first.outcome, first.error]).toEqual(["completed", null]);
    expect([second.outcome, second.error]).toEqual(["completed", null]);
    expect(first.response).toEqual({ text: "Quoted 2 kg to local." });
    expect(second.response).toEqual({ text: "Quoted 3 kg to regional." });
    const expected = [
      { weight_kg: 2, zone: "local", amount: 9 },
      { weight_kg: 3, zone: "regional", amount: 15.5 },
    ];
    expected.forEach(({ weight_kg, zone }, index) => {
      const reported = [first, second][index]!.toolCalls;
      expect(reported).toEqual([
        expect.objectContaining({ server: "shipping", tool: "shipping_quote", status: "success" }),
      ]);
      const wire = capture.trace.toolCalls.filter((call) => call.turnId === `turn-${index + 1}`);
      expect(wire.map((call) => [call.server, call.tool, call.arguments, call.status])).toEqual([
        ["shipping", "shipping_quote", { weight_kg, zone }, "success"],
      ]);
    });
    expect(callLog(log)).toHaveLength(2);
    model.journal.assertNoProblems();

    const t3 = Date.now();
    await session.close();
    console.log("timing", t1 - t0, t2 - t1, Date.now() - t3, events);
    expect(session.health().alive).toBe(false);
    await session.close();
    expect(knownPids(kit, captures).concat(pids).filter(isRunning)).toEqual([]);
  });
});
