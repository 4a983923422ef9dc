// Compiled by `npm run typecheck`, never run: every matcher of #19 on the three expects a
// user may hold: jest-m3's (with the chain and softly), @jest/globals', and the global one
// typed by @types/jest. Each @ts-expect-error must stay an error.
import { expect as globalsExpect } from "@jest/globals";
import {
  expect as m3Expect,
  type ExecutionResult,
  type Readiness,
  type ToolCall,
  type ToolCallsOptions,
  type TurnResult,
} from "jest-m3";

declare const result: ExecutionResult;
declare const turn: TurnResult;
declare const readiness: Readiness;
declare const call: ToolCall;
declare const toolResult: { content: unknown[] };

const trajectory: ToolCallsOptions = {
  mode: "inOrder",
  argumentsMatch: "partial",
  turn: turn.snapshot,
  server: "shipping",
  evidence: "any",
};

// The same calls compile on all three.
for (const e of [m3Expect, globalsExpect, expect] as const) {
  e(result).toHaveToolCall("shipping_quote", {
    turn: turn.snapshot,
    arguments: { tags: ["a", "b"] },
    argumentsMatch: "ignored",
    argumentsUnordered: true,
    result: { structuredContent: { amount: 9 } },
    resultMatch: "partial",
    minLatencyMs: 0,
    maxLatencyMs: 1000,
    predicate: (observed) => observed.server === "shipping",
  });
  e(result).toHaveReportedToolCall("shipping_quote", { turn: 1 });
  e(result).toHaveToolCalls(
    ["a", { tool: "b", arguments: { x: 1 }, status: "success" }],
    trajectory,
  );
  e(result).toHaveToolCalls(["a"], { ordered: false });
  e(result).toMatchTrajectorySnapshot();
  e(result).toMatchTrajectorySnapshot("after the refund");
  e(result).toHaveLifecycle("finished");
  e(turn).toHaveLifecycle("running");
  e(turn).toHaveDuration({ minMs: 1, maxMs: 2 });
  e(call).toHaveDuration(100, { toleranceMs: 5 });
  e(result).toHaveDurationBetween(0, 10);
  e(toolResult).toHaveContent([{ type: "text", text: "x" }], { ordered: false });
  e(result).toHaveProtocolVersion("2025-06-18", { server: "shipping" });
  e(readiness).toHaveCapability("multiTurn", { status: "degraded" });
  e(result).toHaveEvent("process_exit", { server: "shipping", count: 1 });
  e(result).toHaveTrace({ completeness: "partial" });
  e(result).not.toHaveTrace();
}

// Only jest-m3's expect has the chain and softly.
m3Expect(result)
  .toHaveToolCall("x")
  .inTurn(turn.snapshot)
  .withResult({ isError: true }, { partial: true });
m3Expect.softly(() => {
  m3Expect(result).toBeCompleted();
});
const grouped: Promise<void> = m3Expect.softly(async () => {
  await Promise.resolve();
});
void grouped;

// @ts-expect-error: an unknown trajectory mode
m3Expect(result).toHaveToolCalls(["a"], { mode: "sideways" });
// @ts-expect-error: argumentsMatch is exact | partial | ignored
globalsExpect(result).toHaveToolCall("x", { argumentsMatch: "fuzzy" });
// @ts-expect-error: resultMatch is exact | partial
expect(result).toHaveToolCall("x", { resultMatch: "ignored" });
// @ts-expect-error: a capability status
expect(readiness).toHaveCapability("multiTurn", { status: "fine" });
// @ts-expect-error: an event kind
globalsExpect(result).toHaveEvent("exploded");
// @ts-expect-error: the reported matcher fixes its evidence
m3Expect(result).toHaveReportedToolCall("x", { evidence: "wire" });
// @ts-expect-error: toHaveDurationBetween takes two numbers
expect(turn).toHaveDurationBetween({ minMs: 1 });
// @ts-expect-error: softly is jest-m3's
globalsExpect.softly(() => {});
