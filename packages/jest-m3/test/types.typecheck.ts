// Compiled by `npm run typecheck`, never run: if a matcher's signature drifts, this file
// stops compiling. Each @ts-expect-error must stay an error.
import { expect as globalExpect } from "@jest/globals";
import { expect, type ExecutionResult, type ToolCallChain, type TurnResult } from "jest-m3";

declare const result: ExecutionResult;
declare const turn: TurnResult;

// The exported expect returns the chain from toHaveToolCall, on both polarities.
const chain: ToolCallChain = expect(result).toHaveToolCall("shipping_quote");
chain
  .inTurn(turn)
  .onServer("shipping")
  .withArguments({ weight_kg: 3 }, { partial: true })
  .withStatus("success")
  .times(1);
chain.once().atLeast(1).atMost(2).withResult({ structuredContent: {} });
expect(result).not.toHaveToolCall("other", { turn, server: "shipping" });

// The options form, with every filter.
expect(result).toHaveToolCall("shipping_quote", {
  turn,
  server: "shipping",
  arguments: { weight_kg: 2 },
  argumentsMatch: "partial",
  result: { isError: true },
  status: ["success", "tool_error"],
  evidence: "any",
  count: 1,
});
expect(result).toHaveToolCalls(["a", "b"], { ordered: false, server: "s", turn: 2 });
expect(turn).toHaveOutcome("completed");
expect(turn).toBeCompleted();
expect(result).toHaveError(/boom/);
expect(turn).toHaveText("x");
expect(turn).toHaveTextContaining("x");
expect(turn).toMatchText(/x/);
expect({ content: [] }).toHaveStructuredContent({ amount: 9 });
// Jest's own matchers and statics are still there.
expect(1).toBe(1);
expect.objectContaining({ a: 1 });

// The global expect knows the matchers by declaration merging (options form only).
globalExpect(result).toHaveToolCall("shipping_quote", { count: 1 });

// @ts-expect-error: unknown option
expect(result).toHaveToolCall("x", { turns: 1 });
// @ts-expect-error: status must be a ToolCallStatus
expect(result).toHaveToolCall("x", { status: "ok" });
// @ts-expect-error: evidence is wire | reported | any
expect(result).toHaveToolCall("x", { evidence: "agent" });
// @ts-expect-error: times takes a number
chain.times("1");
// @ts-expect-error: under .not there is no chain (a narrower "not" would only weaken it)
expect(result).not.toHaveToolCall("x").inTurn(1);
// @ts-expect-error: the global expect does not return the chain
globalExpect(result).toHaveToolCall("x").inTurn(1);
