// The new matchers on results the real Codex binary produced (scripted model, shipping
// server): trajectories per turn with Codex's parallel calls, the trajectory snapshot, the
// negotiated protocol, a soft group, and messages for a near miss.
import { expect, type ExecutionResult, type TurnResult } from "jest-m3";
import { codexQuotes, type CodexQuotes } from "./support/codex-quotes";
import { failure } from "./support/failure";

describe("trajectories on a real Codex session", () => {
  let run: CodexQuotes | undefined;
  let result: ExecutionResult;
  let first: TurnResult;
  let second: TurnResult;
  beforeAll(async () => {
    run = await codexQuotes();
    ({ result, first, second } = run);
  });
  afterAll(() => run?.close());

  test("trajectory modes per turn and across the session, on wire and reported evidence", () => {
    expect(result).toHaveToolCalls(
      [{ tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } }],
      {
        turn: first,
      },
    );
    expect(result).toHaveToolCalls(
      [
        { tool: "shipping_quote", arguments: { zone: "international" } },
        { tool: "shipping_quote", arguments: { zone: "local" } },
      ],
      { turn: second.snapshot, mode: "unordered", argumentsMatch: "partial" },
    );
    expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote", "shipping_quote"], {
      evidence: "reported",
    });
    expect(result).toHaveToolCalls(["shipping_quote"], { mode: "subset", turn: 2 });
    expect(
      failure(() =>
        expect(result).toHaveToolCalls(["shipping_quote", "shipping_quote"], { turn: first }),
      ),
    ).toContain("Missing (1):");
  });

  test("the trajectory snapshot is stable: Codex's parallel calls are sorted", () => {
    expect(result).toMatchTrajectorySnapshot();
  });

  test("protocol, trace, durations, result projection and a soft group", () => {
    expect(result).toHaveProtocolVersion(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), {
      server: "shipping",
    });
    expect(result).toHaveTrace();
    expect(result).toHaveLifecycle("finished");
    expect(second).toHaveDuration({ maxMs: 60_000 });
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      result: {
        content: [expect.objectContaining({ type: "text" })],
        structuredContent: { amount: 9, currency: "USD" },
      },
    });
    const message = failure(() =>
      expect.softly(() => {
        expect(result).toHaveToolCall("shipping_quote", {
          turn: second,
          arguments: { weight_kg: 1, zone: "regional" },
        });
        expect(result).toHaveToolCall("shiping_quote");
        expect(first).toBeCompleted();
      }),
    );
    expect(message).toMatch(/^2 grouped assertions failed:/);
    expect(message).toContain('-   "zone": "regional",');
    expect(message).toContain('Did you mean "shipping_quote"? It was called 3 times.');
    expect(message).toContain("matchers-m3-codex.test.ts:");
  });
});
