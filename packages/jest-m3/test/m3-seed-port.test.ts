// The seed's m3 test (two turns, one session; two `to_have_tool_call(..., turn=..., server=
// "shipping", status="success", count=1)` assertions), ported, on sessions that should pass
// and sessions that m3 says must fail. Real MCP calls through the wire capture.
import { MCPTestKit, expect, type ExecutionResult, type TurnResult } from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { failure } from "./support/failure";
import { shipping } from "@jest-m3/test-support";

const quote = (verb: string, weight: number, zone: string) =>
  `${verb} shipping:shipping_quote ${JSON.stringify({ weight_kg: weight, zone })}`;

interface Run {
  readonly result: ExecutionResult;
  readonly first: TurnResult;
  readonly second: TurnResult;
}

/** The seed's assertions, as m3 writes them, in jest-m3's spelling. */
function seedAssertions({ result, first, second }: Run): void {
  expect(result).toHaveOutcome("completed");
  expect(first.snapshot.sessionId).toBe(second.snapshot.sessionId);
  expect(result).toHaveToolCall("shipping_quote", {
    turn: first,
    server: "shipping",
    status: "success",
    count: 1,
  });
  expect(result).toHaveToolCall("shipping_quote", {
    turn: second,
    server: "shipping",
    status: "success",
    count: 1,
  });
}

const cases: Record<string, readonly [string, string]> = {
  "one successful call per turn": [quote("call", 2, "local"), quote("call", 3, "regional")],
  "turn 2 called twice": [
    quote("call", 2, "local"),
    `${quote("call", 3, "regional")}\n${quote("call", 3, "regional")}`,
  ],
  "turn 2's call only reported by the harness": [
    quote("call", 2, "local"),
    quote("report-only", 3, "regional"),
  ],
  "turn 2's call seen on the wire, not reported": [
    quote("call", 2, "local"),
    quote("call-unreported", 3, "regional"),
  ],
  "turn 1's call a tool error": [quote("call", 0, "local"), quote("call", 3, "regional")],
  "both calls in turn 2": [
    "reply nothing yet",
    `${quote("call", 2, "local")}\n${quote("call", 3, "regional")}`,
  ],
};

describe("the seed's m3 assertions, ported", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const runs = new Map<string, Run>();
  beforeAll(async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    for (const [name, [one, two]] of Object.entries(cases)) {
      const session = agent!.session({ server: shipping, tools: ["shipping:shipping_quote"] });
      await session.open();
      const first = await session.send(one);
      const second = await session.send(two);
      await session.close();
      runs.set(name, { result: session.result, first, second });
    }
  });
  afterAll(() => kit.close());

  test("pass where m3 passes: one call per turn, on the wire (reported or not)", () => {
    seedAssertions(runs.get("one successful call per turn")!);
    seedAssertions(runs.get("turn 2's call seen on the wire, not reported")!);
  });

  test("count is exact: a second call in the turn fails", () => {
    expect(failure(() => seedAssertions(runs.get("turn 2 called twice")!))).toContain(
      'Expected: exactly 1 call(s) matching tool "shipping_quote", server "shipping", turn 2, status "success"\nReceived: 2 matching calls (wire evidence)',
    );
  });

  test("a call only the harness reported is not evidence; the table says why", () => {
    const message = failure(() =>
      seedAssertions(runs.get("turn 2's call only reported by the harness")!),
    );
    expect(message).toContain("Received: 0 matching calls (wire evidence)");
    expect(message).toMatch(
      /2 +shipping +shipping_quote +success +reported +\{"weight_kg":3,"zone":"regional"\} +\(not counted: reported only: the harness reported it, the wire did not see it\)/,
    );
    // m3's evidence="reported" sees it.
    const { result, second } = runs.get("turn 2's call only reported by the harness")!;
    expect(result).toHaveToolCall("shipping_quote", {
      turn: second,
      evidence: "reported",
      count: 1,
    });
  });

  test("status is compared: a tool error is not a success, and its text is shown", () => {
    const message = failure(() => seedAssertions(runs.get("turn 1's call a tool error")!));
    expect(message).toContain("Received: 0 matching calls");
    expect(message).toContain("differs in: status");
    expect(message).toContain("error: weight_kg must be greater than 0, got 0");
  });

  test("turn attribution: both calls in turn 2 fail the turn-1 assertion", () => {
    const message = failure(() => seedAssertions(runs.get("both calls in turn 2")!));
    expect(message).toContain(
      'Expected: exactly 1 call(s) matching tool "shipping_quote", server "shipping", turn 1',
    );
    expect(message).toContain("differs in: turn");
  });

  test("m3's to_have_tool_calls is the exact list: a third call fails it (a subsequence passed before)", () => {
    const { result } = runs.get("one successful call per turn")!;
    expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote"]);
    const twice = runs.get("turn 2 called twice")!.result;
    expect(
      failure(() => expect(twice).toHaveToolCalls(["shipping_quote", "shipping_quote"])),
    ).toContain("Unexpected (1):");
    expect(twice).toHaveToolCalls(["shipping_quote", "shipping_quote"], { mode: "inOrder" });
    // m3's ordered=False is the exact multiset.
    expect(result).toHaveToolCalls(
      [
        { tool: "shipping_quote", arguments: { weight_kg: 3, zone: "regional" } },
        { tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } },
      ],
      { ordered: false },
    );
  });
});
