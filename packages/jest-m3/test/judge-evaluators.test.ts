/**
 * The deterministic evaluators on turns and sessions of real MCP calls (the test harness
 * calls the real shipping server): contains, regex, a reply's JSON against a schema, and
 * tool-call F1 against an expected trajectory, each with a score and its reasoning.
 */
import {
  evaluators,
  InvalidJudge,
  MCPTestKit,
  type ExecutionResult,
  type TurnResult,
} from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { shipping, testAgent } from "@jest-m3/test-support";

const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
let quoted: TurnResult;
let json: TurnResult;
let result: ExecutionResult;
beforeAll(async () => {
  const session = testAgent(kit).session({ server: shipping, timeout: 30_000 });
  {
    await using open = await session.open();
    quoted = await open.send(
      'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\n' +
        'call shipping:shipping_quote {"weight_kg":2,"zone":"international"}\n' +
        "reply Local 9 USD, international 14 USD.",
    );
    json = await open.send('reply {"amount": 9, "currency": "USD"}');
  }
  result = session.result;
});
afterAll(() => kit.close());

test("contains and regex read the reply", () => {
  expect(evaluators.contains(quoted, "9 USD")).toEqual({
    evaluator: "contains",
    pass: true,
    score: 1,
    reasoning: 'The reply contains "9 USD".',
  });
  expect(evaluators.contains(quoted, "9 usd").pass).toBe(false);
  expect(evaluators.contains(quoted, "9 usd", { ignoreCase: true }).pass).toBe(true);
  expect(evaluators.regex(quoted, /international (\d+) USD/)).toMatchObject({
    pass: true,
    reasoning: 'The reply matches /international (\\d+) USD/ at "international 14 USD".',
  });
  expect(evaluators.regex(json, /EUR/).score).toBe(0);
  // A session's replies are read together.
  expect(evaluators.contains(result, "currency").pass).toBe(true);
});

test("jsonSchema checks a reply's JSON", () => {
  const schema = {
    type: "object",
    properties: { amount: { type: "number" }, currency: { enum: ["USD", "EUR"] } },
    required: ["amount", "currency"],
  };
  expect(evaluators.jsonSchema(json, schema)).toMatchObject({ pass: true, score: 1 });
  const wrong = evaluators.jsonSchema(json, {
    ...schema,
    properties: { amount: { type: "string" } },
  });
  expect(wrong).toMatchObject({ pass: false, score: 0 });
  expect(wrong.reasoning).toContain("/amount");
  expect(evaluators.jsonSchema(quoted, schema).reasoning).toBe("The reply is not JSON.");
});

test("toolCallF1 scores the observed calls against the expected ones", () => {
  expect(evaluators.toolCallF1(quoted, ["shipping_quote", "shipping_quote"])).toEqual({
    evaluator: "toolCallF1",
    pass: true,
    score: 1,
    precision: 1,
    recall: 1,
    reasoning: "F1 1 (precision 1, recall 1).",
  });
  const partial = evaluators.toolCallF1(result, [
    "shipping_quote",
    { server: "billing", tool: "invoice" },
  ]);
  expect(partial).toMatchObject({ pass: false, precision: 0.5, recall: 0.5, score: 0.5 });
  expect(partial.reasoning).toBe(
    "F1 0.5 (precision 0.5, recall 0.5); missing: billing:invoice; not expected: shipping:shipping_quote.",
  );
  expect(
    evaluators.toolCallF1(result, ["shipping_quote", "invoice"], { threshold: 0.5 }).pass,
  ).toBe(true);
  expect(evaluators.toolCallF1(json, []).score).toBe(1);
  expect(() => evaluators.toolCallF1(json, [], { threshold: 2 })).toThrow(InvalidJudge);
  expect(() => evaluators.contains({ reply: "x" }, "x")).toThrow(
    'Invalid judge: "subject" must be a TurnResult',
  );
});
