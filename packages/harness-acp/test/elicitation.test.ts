/**
 * Elicitation and the ACP agents. Gemini CLI 0.61 and OpenCode 1.18 do not pass an MCP
 * server's elicitation on (their MCP clients declare only roots), so readiness says
 * `elicitation: unsupported` and a session with a plan is refused before anything starts;
 * without a plan, the real agent's own answer to a real server's elicitation is on the wire.
 */
import { HarnessNotReady, MCPTestKit, elicitationsOf } from "@jest-m3/core";
import type { HarnessDefinition, ProviderDialect } from "@jest-m3/core/harness";
import { mockServer, type MockServer } from "@jest-m3/core/testing";
import { geminiHarness, opencodeHarness } from "@jest-m3/harness-acp";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { callRule } from "@jest-m3/test-support";
import { expect } from "jest-m3";
import { closeAndExpectNoProcessLeft } from "./support/acp";

jest.setTimeout(180_000);

const cases: [string, HarnessDefinition, ProviderDialect][] = [
  ["Gemini CLI", geminiHarness, "gemini"],
  ["OpenCode", opencodeHarness, "chat-completions"],
];

describe.each(cases)("%s and elicitation", (agentName, harness, dialect) => {
  let model: ScriptedModel;
  let kit: MCPTestKit;
  let desk: MockServer;

  beforeEach(async () => {
    model = await startScriptedModel({
      rules: [callRule(/book a seat/, "desk:book", {}, "{{result}}", "book")],
    });
    kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [harness] });
    desk = mockServer({
      name: "desk",
      tools: [
        {
          name: "book",
          handler: async (_args, context) => {
            try {
              const reply = await context.elicit({
                mode: "form",
                message: "Which seat?",
                requestedSchema: { type: "object", properties: { seat: { type: "string" } } },
              });
              return `server got ${reply.action}`;
            } catch (error) {
              return `server's elicitation failed: ${error instanceof Error ? error.message : String(error)}`;
            }
          },
        },
      ],
    });
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit, []);
    await desk.close();
    await model.close();
  });

  test("a session with a plan is HarnessNotReady, with the reason, before anything starts", async () => {
    const [agent] = kit.agents([
      { harness: harness.name, models: ["scripted-1"], provider: model.providerFor(dialect) },
    ]);
    const session = agent!.session({
      server: await desk.stdio(),
      elicitation: { action: "decline" },
    });
    const refused = await session.open().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HarnessNotReady);
    expect((refused as HarnessNotReady).reasons).toEqual([
      expect.stringMatching(
        new RegExp(
          `^elicitation: unsupported \\(${agentName} [\\d.]+'s MCP client declares only the roots capability`,
        ),
      ),
    ]);
    expect(kit.processes).toEqual([]);
    expect(desk.calls).toEqual([]);
  });

  test("without a plan: the agent's MCP client answers the server's elicitation itself, with an error", async () => {
    const [agent] = kit.agents([
      { harness: harness.name, models: ["scripted-1"], provider: model.providerFor(dialect) },
    ]);
    const session = agent!.session({ server: await desk.stdio(), timeout: 120_000 });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("Please book a seat.");
    }
    expect(desk.calls).toHaveLength(1);
    expect(turn.response?.text).toMatch(/^server's elicitation failed: /);
    const observed = elicitationsOf(session.result);
    expect(observed.map((entry) => [entry.message, entry.action, entry.turnId])).toEqual([
      ["Which seat?", "error", turn.snapshot.turnId],
    ]);
  });
});
