/**
 * The adapter kit's checks for an agent given by command (strings, environment, dialects,
 * placeholders) and the tested-range version rule: each refusal names the option and says
 * what it got, through the reader's own error.
 */
import {
  checkPlaceholders,
  fillPlaceholders,
  optionReader,
  parseVersion,
  rangeCapability,
  readAgentEnv,
  readDialects,
  readStrings,
  testedRange,
  type AgentVersion,
  type VersionProbe,
} from "@jest-m3/core/adapter-kit";

class OwnError extends Error {}

function reader(options: Record<string, unknown>) {
  return optionReader(
    "my-agent",
    options,
    Object.keys(options),
    (option, problem) => new OwnError(`${option} ${problem}`),
  );
}

test("strings: absent, a list, or a refusal saying what it must be", () => {
  const options = { args: ["--acp"], tools: ["read", "a b"], bad: "x" };
  const read = reader(options);
  expect(readStrings(read, options, "missing")).toBeUndefined();
  expect(readStrings(read, options, "args")).toEqual(["--acp"]);
  expect(() => readStrings(read, options, "bad")).toThrow(
    new OwnError('bad must be an array of strings, got "x".'),
  );
  expect(() => readStrings(read, options, "tools", "tool names", /^\w+$/)).toThrow(
    'tools must be tool names, got ["read","a b"].',
  );
});

test.each([
  [{ env: "x" }, 'env must be an object of strings, got "x".'],
  [{ env: { "1X": "a" } }, "env.1X is not a valid variable name."],
  [{ env: { X: 1 } }, "env.X must be a string, got 1."],
  [{ env: { home: "/" } }, /env\.home is set by the harness.*Leave it out/],
  [{ env: { MY_API_KEY: "k" } }, /env\.MY_API_KEY looks like a credential.*credentialEnv/],
])("agent environment %j is refused", (options, message) => {
  expect(() => readAgentEnv(reader(options), options, "env")).toThrow(message);
});

test("agent environment and dialects as given, or their defaults", () => {
  const options = { env: { MY_AGENT_URL: "u" }, dialects: ["gemini"] };
  const read = reader(options);
  expect(readAgentEnv(read, options, "env")).toEqual({ MY_AGENT_URL: "u" });
  expect(readAgentEnv(read, {}, "env")).toEqual({});
  expect(readDialects(read, options, "dialects")).toEqual(["gemini"]);
  expect(readDialects(read, {}, "dialects").length).toBeGreaterThan(1);
  expect(() => readDialects(read, { dialects: [] }, "dialects")).toThrow(
    /dialects must be a non-empty array of "responses".*got \[\]/,
  );
});

test("placeholders: an unknown one is refused, a known one filled, a missing value thrown", () => {
  const read = reader({});
  expect(() => checkPlaceholders(read, "args[0]", "{{modle}}", ["model"])).toThrow(
    "args[0] uses the unknown placeholder {{modle}}; the placeholders are {{model}}.",
  );
  expect(fillPlaceholders("-m {{ model }}", { model: "m1" }, () => new Error("no"))).toBe("-m m1");
  expect(() => fillPlaceholders("{{home}}", {}, (name) => new OwnError(name))).toThrow(
    new OwnError("home"),
  );
});

test("a tested range: older unavailable, inside ready, newer degraded, a failed probe unavailable", () => {
  const tested = testedRange("1.2.0", "1.3.0", "my-cli");
  const probe = (text: string): VersionProbe => ({
    ok: true,
    version: parseVersion(text) as AgentVersion,
    output: text,
  });
  expect(rangeCapability("My CLI", probe("1.1.9"), tested)).toEqual({
    status: "unavailable",
    reason:
      "My CLI 1.1.9 is older than 1.2.0, the oldest version this adapter is tested with; install my-cli@1.2.0",
  });
  expect(rangeCapability("My CLI", probe("1.2.7"), tested)).toEqual({ status: "ready" });
  expect(rangeCapability("My CLI", probe("1.3.0"), tested)).toMatchObject({
    status: "degraded",
    reason: expect.stringMatching(/1\.3\.0 is newer than the tested range \(>=1\.2\.0 <1\.3\.0\)/),
  });
  expect(rangeCapability("My CLI", { ok: false, reason: "gone" }, tested)).toEqual({
    status: "unavailable",
    reason: "gone",
  });
});
