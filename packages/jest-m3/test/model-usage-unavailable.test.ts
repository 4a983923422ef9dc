// Without a provider the harness talks to its own model and no tap stands in the path:
// usage is unavailable with that reason, and the token and round-trip matchers fail
// (with .not too) instead of passing on numbers nobody observed. Bad matcher input is a
// usage error naming the option.
import { MCPTestKit, expect, isUnavailable } from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { shipping } from "@jest-m3/test-support";

test("no tap: usage unavailable with its reason, and the matchers fail either way", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
  const result = await agent!.run('call shipping:shipping_quote {"weight_kg":1,"zone":"local"}', {
    server: shipping,
  });
  const [turn] = result.turns;
  expect(isUnavailable(turn!.usage)).toBe(true);
  expect(turn!.usage).toEqual({
    unavailable: true,
    reason: expect.stringContaining("no provider tap stood between the agent and its model"),
  });
  expect(turn!.modelRequests).toBeUndefined();
  expect(() => expect(result).toStayWithinTokens({ total: 1_000_000 })).toThrow(
    /usage unavailable/,
  );
  expect(() => expect(result).not.toStayWithinTokens({ total: 0 })).toThrow(/usage unavailable/);
  expect(() => expect(turn).toHaveModelRequests({ max: 10 })).toThrow(/unavailable/);
  expect(() => expect(turn).not.toHaveModelRequests({ max: 0 })).toThrow(/unavailable/);
  expect(() => expect(result).toStayWithinTokens({ total: -1 })).toThrow(/budget.total must be/);
  expect(() => expect(result).toStayWithinTokens({ totl: 5 } as never)).toThrow(
    /unknown option "totl"/,
  );
  expect(() => expect(result).toHaveModelRequests({})).toThrow(/give max, min or both/);
  expect(() => expect(result).toHaveModelRequests({ max: 1, turn: 9 })).toThrow(/has no turn 9/);
});
