// What docs/matchers.md does not show: soft groups (async, chains, all passing), matchers on
// a ToolCall, counts of events, and the usage errors of the new options. A real session
// through the test harness.
import { MCPTestKit, expect, type ExecutionResult, type TurnResult } from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { failure } from "./support/failure";
import { shipping, testAgent } from "@jest-m3/test-support";

const quote = (weight: number, zone: string) =>
  `call shipping:shipping_quote ${JSON.stringify({ weight_kg: weight, zone })}`;

async function failureOf(assertion: () => Promise<unknown>): Promise<string> {
  try {
    await assertion();
  } catch (error) {
    // eslint-disable-next-line no-control-regex
    return (error as Error).message.replace(/\u001b\[[0-9;]*m/g, "");
  }
  throw new Error("the assertion passed");
}

describe("soft groups, ToolCall subjects and usage errors", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  let result: ExecutionResult;
  let first: TurnResult;
  beforeAll(async () => {
    const session = testAgent(kit).session({
      server: shipping,
      tools: ["shipping:shipping_quote"],
    });
    await session.open();
    first = await session.send(`${quote(2, "local")}\n${quote(0, "local")}\nreply ok`);
    await session.close();
    result = session.result;
  });
  afterAll(() => kit.close());

  test("a soft group where everything passes returns; async groups are awaited", async () => {
    expect.softly(() => {
      expect(result).toBeCompleted();
      expect(result).toHaveToolCall("shipping_quote").inTurn(first).times(2);
    });
    await expect.softly(async () => {
      await Promise.resolve();
      expect(first).toHaveText("ok");
    });
    const message = await failureOf(() =>
      expect.softly(async () => {
        await Promise.resolve();
        expect(first).toHaveText("no");
        await expect(Promise.resolve(1)).resolves.toBe(2);
      }),
    );
    expect(message).toMatch(
      /^2 grouped assertions failed:\n\n1\. \(.*matchers-m3\.test\.ts:\d+:\d+\)/,
    );
  });

  test("in a group, a chain whose link failed stops there; outside, assertions throw again", () => {
    const message = failure(() =>
      expect.softly(() => {
        expect(result).toHaveToolCall("shipping_quote").onServer("billing").times(5).once();
      }),
    );
    expect(message).toMatch(/^1 grouped assertion failed:/);
    expect(message).toContain('.onServer("billing")');
    expect(message).not.toContain(".times(5)");
    expect(() => expect(first).toHaveText("no")).toThrow("Expected text equal to");
  });

  test("a ToolCall is a subject for duration and content; a tool error shows its text", () => {
    const [ok, refused] = result.trace.toolCalls;
    expect(ok).toHaveDuration({ minMs: 0, maxMs: 60_000 });
    expect(ok).toHaveContent([{ type: "text", text: "Quote calculated" }]);
    expect(failure(() => expect(refused).toHaveContent([]))).toContain(
      "The tool returned an error:\n  weight_kg must be greater than 0, got 0",
    );
    expect(failure(() => expect(ok).toHaveDuration(100_000, { toleranceMs: 1 }))).toMatch(
      /Expected tool call duration: "100000 ms ± 1 ms"\nReceived tool call duration: "\d+ ms"/,
    );
  });

  test("event counts, latency filters and the unordered content form", () => {
    expect(result).toHaveEvent("connected", { server: "shipping", count: 1 });
    expect(result).toHaveToolCall("shipping_quote", { maxLatencyMs: 60_000, count: 2 });
    expect(result).toHaveToolCall("shipping_quote", { minLatencyMs: 600_000, count: 0 });
    expect(result.trace.toolCalls[0]).toHaveContent([expect.objectContaining({ type: "text" })], {
      ordered: false,
    });
    expect(result).toHaveToolCall("shipping_quote", {
      result: { isError: true },
      resultMatch: "partial",
      count: 1,
    });
  });

  test("usage errors of the new options", () => {
    expect(
      failure(() => expect(result).toHaveToolCalls(["x"], { mode: "strict", ordered: true })),
    ).toContain("Matcher error: give mode or ordered, not both");
    expect(failure(() => expect(result).toHaveToolCalls("x" as never))).toContain(
      "Matcher error: expected value must be an array",
    );
    expect(failure(() => expect(first).toHaveDuration({ toleranceMs: 3 }))).toContain(
      "toleranceMs needs an expected duration",
    );
    expect(
      failure(() =>
        expect(result).toHaveToolCall("x", { resultMatch: "fuzzy" as never, result: {} }),
      ),
    ).toContain('resultMatch must be "exact" or "partial"');
    expect(failure(() => expect(first).toHaveProtocolVersion("2025-06-18"))).toContain(
      "a TurnResult has no wire messages",
    );
    expect(failure(() => expect(result).not.toMatchTrajectorySnapshot())).toContain(
      "cannot be used with .not",
    );
    expect(failure(() => expect(result).toHaveEvent("boom" as never))).toContain(
      "unknown event kind",
    );
    expect(failure(() => expect({}).toHaveCapability("multiTurn"))).toContain(
      "must be a Readiness",
    );
    expect(
      failure(() => expect(result).toHaveReportedToolCall("x", { evidence: "wire" } as never)),
    ).toContain('evidence is always "reported" here');
  });
});
