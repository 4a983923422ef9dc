/**
 * The adapter kit's per-agent error classes: each agent's class names (so `error.name` and
 * `instanceof` tell agents apart) over the kit's classes and codes (one code per meaning on
 * every agent), worded with the agent's names.
 */
import {
  agentErrorClasses,
  AgentExited,
  AgentTimeout,
  InvalidHarnessOptions,
} from "@jest-m3/core/adapter-kit";

const mine = agentErrorClasses(
  { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" },
  { exited: "MyAgentExited", timeout: "MyAgentTimeout", invalidOptions: "InvalidMyAgentOptions" },
);
const other = agentErrorClasses(
  { agent: "Other", request: (method) => `the command ${method}` },
  { exited: "OtherExited", timeout: "OtherTimeout", invalidOptions: "InvalidOtherOptions" },
);

test("an exit names the process and the stderr's owner; the code is the kit's", () => {
  const error = new mine.Exited("while waiting for session/new", "code 3", "fatal: out of cheese");
  expect(error).toBeInstanceOf(AgentExited);
  expect(error).toBeInstanceOf(mine.Exited);
  expect(error).not.toBeInstanceOf(other.Exited);
  expect(error.name).toBe("MyAgentExited");
  expect(error.code).toBe("M3_HARNESS_DIED");
  expect(error.exit).toBe("code 3");
  expect(error.message).toMatch(
    /^my-agent serve exited \(code 3\) while waiting for session\/new\./,
  );
  expect(error.message).toContain("my-agent");
  expect(error.message).toContain("fatal: out of cheese");
});

test("a timeout keeps the method, words the request as asked, and is retryable", () => {
  const error = new other.Timeout("get_state", 1500);
  expect(error).toBeInstanceOf(AgentTimeout);
  expect(error.name).toBe("OtherTimeout");
  expect(error.code).toBe("M3_AGENT_TIMEOUT");
  expect(error.retryable).toBe(true);
  expect(error.method).toBe("get_state");
  expect(error.message).toMatch(/^Other did not answer the command get_state within 1500 ms\./);
  expect(error.message).toContain("raise the Other option startupTimeoutMs");
  expect(new mine.Timeout("session/new", 30_000).message).toMatch(
    /^my-agent serve did not answer session\/new within 30000 ms\./,
  );
});

test("malformed options name the harness and the option", () => {
  const error = new mine.InvalidOptions("sandbox", "must be a string.");
  expect(error).toBeInstanceOf(InvalidHarnessOptions);
  expect(error.name).toBe("InvalidMyAgentOptions");
  expect(error.code).toBe("M3_INVALID_SELECTION");
  expect(error.option).toBe("sandbox");
  expect(error.message).toBe('My Agent harness option "sandbox" must be a string.');
});
