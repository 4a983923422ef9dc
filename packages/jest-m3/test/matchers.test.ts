import {
  ExecutionOutcome,
  MCPTestKit,
  expect,
  type DirectClient,
  type ExecutionResult,
  type TurnResult,
} from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { failure } from "./support/failure";
import { shipping, testAgent } from "@jest-m3/test-support";

const quote = (weight: number, zone: string) =>
  `call shipping:shipping_quote ${JSON.stringify({ weight_kg: weight, zone })}`;

describe("tool-call matchers on a real two-turn session", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  let result: ExecutionResult;
  let first: TurnResult;
  let second: TurnResult;
  beforeAll(async () => {
    const session = testAgent(kit).session({
      server: shipping,
      tools: ["shipping:shipping_quote"],
    });
    await session.open();
    first = await session.send(`${quote(2, "local")}\nreply Your quote is 9 USD.`);
    second = await session.send(`${quote(3, "regional")}\n${quote(1, "mars")}\nreply 15.5 USD`);
    await session.close();
    result = session.result;
  });
  afterAll(() => kit.close());

  test("the seed's assertions pass", () => {
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      server: "shipping",
      status: "success",
      count: 1,
    });
    expect(result)
      .toHaveToolCall("shipping_quote")
      .inTurn(second)
      .onServer("shipping")
      .withStatus("success")
      .times(1);
    expect(second).toHaveTextContaining("15.5");
  });

  test("arguments compare with Jest's equality: asymmetric matchers work", () => {
    expect(result).toHaveToolCall("shipping_quote", {
      arguments: { weight_kg: expect.any(Number), zone: expect.stringMatching(/^reg/) },
    });
    expect(result)
      .toHaveToolCall("shipping_quote")
      .withArguments({ weight_kg: expect.closeTo(3, 5) }, { partial: true })
      .withResult(
        { structuredContent: expect.objectContaining({ amount: 15.5 }) },
        { partial: true },
      )
      .once();
  });

  test("a failed count lists every observed call under what was asked", () => {
    expect(
      failure(() => expect(result).toHaveToolCall("shipping_quote", { turn: first, count: 2 })),
    ).toMatchInlineSnapshot(`
"expect(received).toHaveToolCall(tool, options)

Expected: exactly 2 call(s) matching tool "shipping_quote", turn 1
Received: 1 matching call (wire evidence)

Observed calls (3, wire evidence):
  turn  server    tool            status      evidence  arguments
  1     shipping  shipping_quote  success     both      {"weight_kg":2,"zone":"local"}
  2     shipping  shipping_quote  success     both      {"weight_kg":3,"zone":"regional"}
  2     shipping  shipping_quote  tool_error  both      {"weight_kg":1,"zone":"mars"}"
`);
  });

  test("each chain link fails on its own and the message shows the chain so far", () => {
    const chain = () =>
      expect(result).toHaveToolCall("shipping_quote").inTurn(first).withStatus("tool_error");
    expect(failure(chain)).toMatch(
      /^expect\(received\)\.toHaveToolCall\("shipping_quote"\)\.inTurn\(turn 1\)\.withStatus\("tool_error"\)\n/,
    );
    expect(
      failure(() => expect(result).toHaveToolCall("shipping_quote").onServer("billing")),
    ).toContain('Expected: at least 1 call(s) matching tool "shipping_quote", server "billing"');
    expect(
      failure(() => expect(result).toHaveToolCall("shipping_quote").inTurn(second).times(1)),
    ).toContain("Received: 2 matching calls");
    expect(failure(() => expect(result).toHaveToolCall("shipping_quote").atMost(2))).toContain(
      "Expected: at most 2",
    );
    expect(failure(() => expect(result).toHaveToolCall("shipping_quote").atLeast(4))).toContain(
      "Expected: at least 4",
    );
  });

  test(".not takes every filter as options and returns no chain", () => {
    const returned: unknown = expect(result).not.toHaveToolCall("shipping_quote", {
      turn: first,
      status: "tool_error",
    });
    expect(returned).toBeUndefined();
    expect(
      failure(() =>
        expect(result).not.toHaveToolCall("shipping_quote", { turn: second, status: "tool_error" }),
      ),
    ).toContain("Received: 1 matching call");
  });

  test("a chain failure points at the test's line, not at jest-m3", () => {
    let stack = "";
    try {
      expect(result).toHaveToolCall("shipping_quote").onServer("billing");
    } catch (error) {
      stack = (error as Error).stack ?? "";
    }
    const frames = stack.split("\n").filter((line) => line.trim().startsWith("at "));
    expect(frames[0]).toContain("matchers.test.ts");
  });

  test("asymmetric matchers read as themselves in messages", () => {
    const message = failure(() =>
      expect(result)
        .toHaveToolCall("shipping_quote")
        .withArguments({ weight_kg: expect.closeTo(7, 1) }, { partial: true }),
    );
    expect(message).toContain(
      '.withArguments({"weight_kg":"NumberCloseTo 7 (1 digit)"}, { partial: true })',
    );
  });

  test(".not reads as a negative and needs nothing more than a finished subject", () => {
    expect(result).not.toHaveToolCall("shipping_quote", { status: "policy_denied" });
    expect(result).not.toHaveToolCall("other_tool");
    expect(
      failure(() => expect(result).not.toHaveToolCall("shipping_quote", { turn: 1 })),
    ).toContain('Expected: no call (at least 1 would pass) matching tool "shipping_quote", turn 1');
    expect(result).toHaveToolCall("shipping_quote", { status: "tool_error", count: 1 });
    expect(result).toHaveToolCall("shipping_quote", { turn: 1, count: 0, status: "tool_error" });
  });

  test("toHaveToolCalls: order, any order, per turn", () => {
    expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote"], { mode: "inOrder" });
    expect(second).toHaveToolCalls(["shipping_quote", "shipping_quote"], { turn: second });
    expect(
      failure(() => expect(first).toHaveToolCalls(["shipping_quote", "shipping_quote"])),
    ).toContain("Missing (1):\n  2. shipping_quote");
    expect(result).not.toHaveToolCalls(["refund"], { ordered: false });
  });

  test("outcome, completion, error and text matchers", () => {
    expect(first).toBeCompleted();
    expect(first).toHaveText("Your quote is 9 USD.");
    expect(first).toMatchText(/\b9 USD\b/);
    expect(result).not.toHaveError();
    expect(failure(() => expect(first).toHaveText("nine"))).toContain(
      'Received text: "Your quote is 9 USD."',
    );
    expect(failure(() => expect(result).toHaveOutcome(ExecutionOutcome.FAILED))).toContain(
      'Received outcome: "completed"',
    );
  });

  test("usage errors read differently from failed expectations", () => {
    expect(failure(() => expect(42).toHaveToolCall("x"))).toContain(
      "Matcher error: received value must be an ExecutionResult",
    );
    expect(failure(() => expect(result).toHaveToolCall("x", { turns: 1 } as never))).toContain(
      'Matcher error: unknown option "turns"',
    );
    expect(failure(() => expect(result).toHaveToolCall("x", { count: 1, minCount: 1 }))).toContain(
      "count cannot be combined with minCount or maxCount",
    );
    expect(failure(() => expect({}).toHaveOutcome("completed"))).toContain("Matcher error");
  });
});

describe("matchers on a direct client", () => {
  let client: DirectClient;
  const kit = new MCPTestKit({ env: {} });
  afterAll(() => kit.close());

  test("a closed DirectClient is a subject; structured content and text of tool results", async () => {
    client = kit.direct(shipping);
    const ok = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    await client.callTool("shipping_quote", { weight_kg: 0, zone: "local" });
    expect(ok).toHaveStructuredContent({ amount: 9, currency: "USD" });
    expect(ok).toHaveStructuredContent({ amount: expect.closeTo(9.0001, 2), currency: "USD" });
    expect(ok).toHaveText("Quote calculated");
    expect(
      failure(() => expect(ok).toHaveStructuredContent({ amount: 10, currency: "USD" })),
    ).toContain("- Expected");
    expect(failure(() => expect(client).not.toHaveToolCall("shipping_quote"))).toContain(
      "needs a finished subject",
    );
    await client.close();
    expect(client).toHaveToolCall("shipping_quote", { status: "tool_error", count: 1 });
    expect(client).toHaveToolCall("shipping_quote", {
      arguments: { weight_kg: 2, zone: "local" },
      result: { isError: false },
      resultMatch: "partial",
    });
  });

  test("a tool on several servers needs a server", async () => {
    const second = kit.direct({ ...shipping, name: "shipping-eu" });
    const third = kit.direct(shipping);
    await second.callTool("shipping_quote", { weight_kg: 1, zone: "local" });
    await third.callTool("shipping_quote", { weight_kg: 1, zone: "local" });
    await second.close();
    await third.close();
    const calls = [...second.finalTrace.toolCalls, ...third.finalTrace.toolCalls];
    expect(failure(() => expect(calls).toHaveToolCall("shipping_quote"))).toContain(
      'Tool "shipping_quote" was called on several servers (shipping-eu, shipping); say which with { server }.',
    );
    expect(calls).toHaveToolCall("shipping_quote", { server: "shipping-eu", count: 1 });
  });
});
