import {
  ConformanceFailure,
  conformanceChecks,
  defineHarness,
  type ConformanceOptions,
} from "@jest-m3/core/harness";
import { shipping } from "./support/servers";
import { testHarness } from "@jest-m3/core/testing";

const prompts = {
  callTool: 'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply 9 USD',
  hang: "hang",
  fail: "fail the provider answered HTTP 500",
};

describe("the conformance suite against the test adapter", () => {
  const options: ConformanceOptions = {
    harness: testHarness(),
    selection: { models: ["m"] },
    server: shipping,
    tool: "shipping_quote",
    prompts,
    turnTimeoutMs: 10_000,
  };
  for (const check of conformanceChecks(options)) test(check.name, () => check.run());
});

describe("the conformance suite catches a broken adapter", () => {
  const honest = testHarness();
  // Opens a new conversation for every turn: multi-turn is broken.
  const forgetful = defineHarness({
    name: "forgetful",
    readiness: honest.readiness,
    async open(launch) {
      const inner = await honest.open(launch);
      let turns = 0;
      return {
        ...inner,
        get id() {
          return `conversation-${++turns}`;
        },
      };
    },
  });
  test("a session id that changes between turns fails the multi-turn check", async () => {
    const [multiTurn] = conformanceChecks({
      harness: forgetful,
      selection: { models: ["m"] },
      server: shipping,
      tool: "shipping_quote",
      prompts,
      turnTimeoutMs: 10_000,
    });
    await expect(multiTurn!.run()).rejects.toThrow(ConformanceFailure);
    await expect(multiTurn!.run()).rejects.toThrow(/the session id changed between turns/);
  });
});
