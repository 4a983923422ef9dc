/** Sessions on core's deterministic test harness (`testHarness()`), the agent-free tests' agent. */
import type { AgentSelection, MCPTestKit } from "@jest-m3/core";

/** The kit's agent of the test harness (the kit lists `testHarness()`), with `model`. */
export function testAgent(kit: MCPTestKit, model = "m"): AgentSelection {
  return kit.agents([{ harness: "test", models: [model] }])[0]!;
}
