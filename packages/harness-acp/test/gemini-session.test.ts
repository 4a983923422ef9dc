/**
 * The ACP adapter on the real Gemini CLI, the scripted model (Gemini dialect) and the real
 * shipping server: two turns on one session, a provider failure, a cancelled turn, and an
 * agent killed mid-turn.
 */
import { join } from "node:path";
import { MCPTestKit, type WireCapture } from "@jest-m3/core";
import { geminiHarness, type AcpSession } from "@jest-m3/harness-acp";
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

describe("Gemini CLI over ACP (real binary, scripted model, real MCP server)", () => {
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
      selection("gemini", model.providerFor("gemini")),
      [shippingServer(log)],
      ["shipping:shipping_quote"],
    );
    captures.push(capture);
    const session = (await geminiHarness.open(launch)) as AcpSession;
    pids.push(session.pid as number);

    const first = await runTurn(session, capture, "turn-1", "Please quote 2 kg to local.");
    const second = await runTurn(session, capture, "turn-2", "Please quote 3 kg to regional.");
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
    console.log(
      JSON.stringify(
        {
          events,
          reported: first.toolCalls,
          journal: model.journal.entries.map((entry) => [
            entry.path,
            entry.conversation?.offeredTools,
          ]),
        },
        null,
        1,
      ),
    );
    model.journal.assertNoProblems();

    await session.close();
    expect(session.health().alive).toBe(false);
    await session.close();
    expect(knownPids(kit, captures).concat(pids).filter(isRunning)).toEqual([]);
  });
});
