// The matchers on results the real Codex binary produced (scripted model, shipping server):
// wire and reported evidence side by side, per turn.
import { ExecutionOutcome, expect } from "jest-m3";
import { useCodexQuotes } from "./support/codex-quotes";
import { failure } from "./support/failure";

describe("matchers on a real Codex session", () => {
  const run = useCodexQuotes();

  test("per-turn assertions with both kinds of evidence", () => {
    expect(run.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(run.result).toHaveToolCall("shipping_quote", {
      turn: run.first,
      server: "shipping",
      status: "success",
      count: 1,
    });
    expect(run.result)
      .toHaveToolCall("shipping_quote")
      .inTurn(run.second)
      .withStatus("success")
      .times(2);
    expect(run.result).toHaveToolCall("shipping_quote", {
      turn: run.second,
      evidence: "reported",
      count: 2,
    });
    expect(run.result)
      .toHaveToolCall("shipping_quote")
      .inTurn(run.second)
      .withArguments({ zone: "international" }, { partial: true })
      .withResult({ structuredContent: { amount: 12, currency: "USD" } }, { partial: true })
      .once();
    expect(run.second).toHaveTextContaining("Local 7, international 12");
    expect(run.result).toHaveToolCalls(["shipping_quote", "shipping_quote", "shipping_quote"]);
    expect(run.result.trace.toolCalls.every((call) => call.evidence === "both")).toBe(true);
  });

  test("a failure lists the calls Codex really made, turn by turn", () => {
    const message = failure(() =>
      expect(run.result).toHaveToolCall("shipping_quote", { turn: run.first, count: 2 }),
    );
    expect(message).toContain("Received: 1 matching call (wire evidence)");
    expect(message).toMatch(
      / {2}1 +shipping +shipping_quote +success +both +\{"weight_kg":2,"zone":"local"\}/,
    );
    expect(message).toMatch(
      / {2}2 +shipping +shipping_quote +success +both +\{"weight_kg":1,"zone":"international"\}/,
    );
  });
});
