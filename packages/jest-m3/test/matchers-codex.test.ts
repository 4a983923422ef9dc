// The matchers on results the real Codex binary produced (scripted model, shipping server):
// wire and reported evidence side by side, per turn.
import { ExecutionOutcome, expect, type ExecutionResult, type TurnResult } from "jest-m3";
import { codexQuotes, type CodexQuotes } from "./support/codex-quotes";
import { failure } from "./support/failure";

describe("matchers on a real Codex session", () => {
  let run: CodexQuotes | undefined;
  let result: ExecutionResult;
  let first: TurnResult;
  let second: TurnResult;
  beforeAll(async () => {
    run = await codexQuotes();
    ({ result, first, second } = run);
  });
  afterAll(() => run?.close());

  test("per-turn assertions with both kinds of evidence", () => {
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      server: "shipping",
      status: "success",
      count: 1,
    });
    expect(result).toHaveToolCall("shipping_quote").inTurn(second).withStatus("success").times(2);
    expect(result).toHaveToolCall("shipping_quote", {
      turn: second,
      evidence: "reported",
      count: 2,
    });
    expect(result)
      .toHaveToolCall("shipping_quote")
      .inTurn(second)
      .withArguments({ zone: "international" }, { partial: true })
      .withResult({ structuredContent: { amount: 12, currency: "USD" } }, { partial: true })
      .once();
    expect(second).toHaveTextContaining("Local 7, international 12");
    expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote", "shipping_quote"]);
    expect(result.trace.toolCalls.every((call) => call.evidence === "both")).toBe(true);
  });

  test("a failure lists the calls Codex really made, turn by turn", () => {
    const message = failure(() =>
      expect(result).toHaveToolCall("shipping_quote", { turn: first, count: 2 }),
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
