// The new matchers on results the real Codex binary produced (scripted model, shipping
// server): trajectories per turn with Codex's parallel calls, the trajectory snapshot, the
// negotiated protocol, a soft group, and messages for a near miss.
import { expect } from "jest-m3";
import { useCodexQuotes } from "./support/codex-quotes";
import { failure } from "./support/failure";

describe("trajectories on a real Codex session", () => {
  const run = useCodexQuotes();

  test("trajectory modes per turn and across the session, on wire and reported evidence", () => {
    expect(run.result).toHaveToolCalls(
      [{ tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } }],
      {
        turn: run.first,
      },
    );
    expect(run.result).toHaveToolCalls(
      [
        { tool: "shipping_quote", arguments: { zone: "international" } },
        { tool: "shipping_quote", arguments: { zone: "local" } },
      ],
      { turn: run.second.snapshot, mode: "unordered", argumentsMatch: "partial" },
    );
    expect(run.result).toHaveToolCalls(["shipping_quote", "shipping_quote", "shipping_quote"], {
      evidence: "reported",
    });
    expect(run.result).toHaveToolCalls(["shipping_quote"], { mode: "subset", turn: 2 });
    expect(
      failure(() =>
        expect(run.result).toHaveToolCalls(["shipping_quote", "shipping_quote"], {
          turn: run.first,
        }),
      ),
    ).toContain("Missing (1):");
  });

  test("the trajectory snapshot is stable: Codex's parallel calls are sorted", () => {
    expect(run.result).toMatchTrajectorySnapshot();
  });

  test("protocol, trace, durations, result projection and a soft group", () => {
    expect(run.result).toHaveProtocolVersion(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), {
      server: "shipping",
    });
    expect(run.result).toHaveTrace();
    expect(run.result).toHaveLifecycle("finished");
    expect(run.second).toHaveDuration({ maxMs: 60_000 });
    expect(run.result).toHaveToolCall("shipping_quote", {
      turn: run.first,
      result: {
        content: [expect.objectContaining({ type: "text" })],
        structuredContent: { amount: 9, currency: "USD" },
      },
    });
    const message = failure(() =>
      expect.softly(() => {
        expect(run.result).toHaveToolCall("shipping_quote", {
          turn: run.second,
          arguments: { weight_kg: 1, zone: "regional" },
        });
        expect(run.result).toHaveToolCall("shiping_quote");
        expect(run.first).toBeCompleted();
      }),
    );
    expect(message).toMatch(/^2 grouped assertions failed:/);
    expect(message).toContain('-   "zone": "regional",');
    expect(message).toContain('Did you mean "shipping_quote"? It was called 3 times.');
    expect(message).toContain("matchers-m3-codex.test.ts:");
  });
});
