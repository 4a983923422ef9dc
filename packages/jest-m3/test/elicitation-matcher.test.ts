import { MCPTestKit, expect, type DirectClient, type StdioServer } from "jest-m3";
import { mockServer, type MockServer } from "@jest-m3/core/testing";
import { failure } from "./support/failure";

const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

describe("toHaveElicitation on a direct client", () => {
  const kit = new MCPTestKit({ env: {} });
  let mock: MockServer;
  let client: DirectClient;
  beforeAll(async () => {
    mock = mockServer({
      name: "signup",
      tools: [
        {
          name: "signup",
          handler: async (_args, context) => {
            const form = await context.elicit({
              mode: "form",
              message: "Your shipping address?",
              requestedSchema: { type: "object", properties: { city: { type: "string" } } },
            });
            const link = await context.elicit({
              mode: "url",
              message: "Confirm your email",
              url: "https://example.com/confirm",
              elicitationId: "e-1",
            });
            return `${form.action}/${link.action}`;
          },
        },
      ],
    });
    client = kit.direct(await mock.stdio(), {
      elicitation: {
        rules: [
          { when: { mode: "form" }, answer: { action: "accept", content: { city: "Porto" } } },
          { when: { mode: "url" }, answer: { action: "decline" } },
        ],
      },
    });
    await client.callTool("signup");
  });
  afterAll(async () => {
    await kit.close();
    await mock.close();
  });

  test("matches by message, mode, action and content; counts; .not", () => {
    expect(client).toHaveElicitation();
    expect(client).toHaveElicitation({
      message: "address",
      action: "accept",
      content: { city: "Porto" },
    });
    expect(client).toHaveElicitation({ message: /email/, mode: "url", action: "decline" });
    expect(client).toHaveElicitation({
      content: expect.objectContaining({ city: expect.any(String) }),
    });
    expect(client).toHaveElicitation({ server: "signup", count: 2 });
    expect(client).not.toHaveElicitation({ action: "cancel" });
    expect(client.trace).toHaveElicitation({ mode: "form", count: 1 });
  });

  test("a failure lists every elicitation observed", () => {
    const message = failure(() =>
      expect(client).toHaveElicitation({ message: "address", action: "decline" }),
    );
    expect(message).toContain("Received: 0 matching of 2");
    expect(message).toContain('signup: form "Your shipping address?" → accept {"city":"Porto"}');
    expect(message).toContain('signup: url "Confirm your email" → decline');
    const negated = failure(() => expect(client).not.toHaveElicitation({ mode: "url" }));
    expect(negated).toContain("Expected: no elicitation matching");
  });

  test("usage errors read differently from failures", () => {
    expect(failure(() => expect({ not: "a client" }).toHaveElicitation())).toContain(
      "value must be a DirectClient, a Trace, or an ExecutionResult",
    );
    expect(failure(() => expect(client).toHaveElicitation({ colour: "red" } as never))).toContain(
      'unknown filter "colour"',
    );
    expect(failure(() => expect(client).toHaveElicitation({ count: -1 }))).toContain(
      "count must be a whole number",
    );
    expect(failure(() => expect(client).toHaveElicitation({ turn: 3 } as never))).toContain(
      "turn must be a TurnResult (what send() returned) or its turnId",
    );
  });

  test("turn: a direct client's elicitations belong to no turn", () => {
    expect(client).not.toHaveElicitation({ turn: "exec-1/turn-1" });
    expect(failure(() => expect(client).toHaveElicitation({ turn: "exec-1/turn-1" }))).toMatch(
      /matching \{"turn": "exec-1\/turn-1"\}[\s\S]*Received: 0 matching of 2/,
    );
  });
});

test("toHaveElicitation on server-everything's elicitation, answered by a plan", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything, {
    elicitation: {
      rules: [
        { when: { message: "inputs" }, answer: { action: "accept", content: { name: "Ada" } } },
      ],
    },
  });
  await client.callTool("trigger-elicitation-request");
  expect(client).toHaveElicitation({
    message: "Please provide inputs",
    mode: "form",
    action: "accept",
    content: { name: "Ada" },
  });
  expect(client).not.toHaveElicitation({ mode: "url" });
});

// Types: a signature drift fails to compile (npx tsc -p tsconfig.test.json).
function typeChecks(client: DirectClient): void {
  expect(client).toHaveElicitation({ mode: "form", action: "accept", count: 1 });
  // @ts-expect-error an action is accept, decline, cancel, error or pending
  expect(client).toHaveElicitation({ action: "maybe" });
  // @ts-expect-error mode is form or url
  expect(client).toHaveElicitation({ mode: "sms" });
}
void typeChecks;
