// The examples of docs/elicitation.md, verbatim (packages/jest-m3/test/docs.test.ts checks it).
import { ElicitationUnexpected, MCPTestKit, expect, type StdioServer } from "jest-m3";
import { mockServer } from "@jest-m3/core/testing";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel } from "@jest-m3/scripted-model";

const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

test("a plan answers server-everything's elicitations", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything, {
    elicitation: {
      rules: [
        {
          when: { mode: "form", message: "inputs" },
          answer: { action: "accept", content: { name: "Ada" } },
          times: 1,
        },
        { when: { mode: "url" }, answer: { action: "decline" } },
      ],
      roundLimit: 3,
    },
  });
  const accepted = await client.callTool("trigger-elicitation-request");
  expect(JSON.stringify(accepted.content)).toContain("Name: Ada");
  await client.callTool("trigger-url-elicitation", { url: "https://example.com/login" });
  // A per-call plan overrides the client's for that call.
  await client.callTool("trigger-elicitation-request", {}, { elicitation: { action: "cancel" } });

  expect(client).toHaveElicitation({ mode: "form", action: "accept", content: { name: "Ada" } });
  expect(client).toHaveElicitation({ mode: "url", action: "decline", count: 1 });
  expect(client).toHaveElicitation({ action: "cancel" });
});

test("an elicitation the plan does not expect fails the call", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything, {
    elicitation: { rules: [{ when: { mode: "url" }, answer: { action: "accept" } }] },
  });
  await expect(client.callTool("trigger-elicitation-request")).rejects.toThrow(
    ElicitationUnexpected,
  );
  expect(client).toHaveElicitation({ mode: "form", action: "error" });
});

test("a plan answers the server's elicitation through Codex", async () => {
  await using desk = mockServer({
    name: "desk",
    tools: [
      {
        name: "book",
        handler: async (_args, context) => {
          const reply = await context.elicit({
            mode: "form",
            message: "Which seat?",
            requestedSchema: { type: "object", properties: { seat: { type: "string" } } },
          });
          return `booked ${reply.action} ${JSON.stringify(reply.content ?? {})}`;
        },
      },
    ],
  });
  await using model = await startScriptedModel({
    rules: [
      {
        name: "book",
        when: { user: /book/ },
        steps: [{ call: "desk:book", args: {} }, { reply: "{{result}}" }],
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  const [agent] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = agent!.session({
    server: await desk.stdio(),
    elicitation: {
      rules: [
        { when: { message: "seat" }, answer: { action: "accept", content: { seat: "12A" } } },
      ],
    },
  });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Please book a seat.");
  }
  expect(turn.response?.text).toBe('booked accept {"seat":"12A"}');
  expect(session.result).toHaveElicitation({
    message: "Which seat?",
    action: "accept",
    content: { seat: "12A" },
    turn,
    count: 1,
  });
});
