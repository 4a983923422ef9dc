// A model name reaches the agent as a command-line argument or a line of its configuration:
// `kit.agents()` refuses one an agent would read as a flag or as a line of its own, before
// anything starts (before, "--yolo" and "m\nsandbox_mode = ..." were passed on).
import { InvalidSelection, MCPTestKit } from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";

test.each([
  [
    "--yolo",
    'Agent selection #1: field "models[0]" must be a model name, got "--yolo": a name starting with "-" would reach the agent as a command-line flag. Write the model\'s own name (e.g. "gpt-5.5").',
  ],
  [
    "gpt-5.5\nsandbox_mode = 'danger-full-access'",
    'Agent selection #1: field "models[0]" must be a model name, got "gpt-5.5\\nsandbox_mode = \'danger-full-access\'": it holds a line break or another control character, which would reach the agent\'s configuration as a line of its own. If the name comes from a file or a variable, trim it.',
  ],
  ["m\u0000", /field "models\[\d\]" must be a model name, got "m\\u0000": it holds a line break/],
])("kit.agents() refuses the model %j, naming the field and the fix", async (model, message) => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  expect(() => kit.agents([{ harness: "test", models: ["ok", model] }])).toThrow(
    typeof message === "string" ? message.replace("models[0]", "models[1]") : message,
  );
  expect(() => kit.agents([{ harness: "test", models: [model] }])).toThrow(InvalidSelection);
  expect(kit.processes).toEqual([]);
});

test("ordinary model names pass: dots, slashes, colons, a dash inside", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const models = ["gpt-5.5", "anthropic/claude-sonnet-5:thinking", "llama3.3:70b-q4"];
  expect(kit.agents([{ harness: "test", models }]).map((agent) => agent.spec.model)).toEqual(
    models,
  );
});
