/**
 * Gemini CLI, OpenCode, Kilo Code and Qwen Code are warm by default: a session whose
 * selection leaves `warm` out runs on this worker's warm pool (two sessions one after the
 * other on one process, none of the kit's own), except a session with built-in tools, which
 * opens cold on a process of its own (the agent's own tools would act in a process other
 * sessions share). `warm: false` is always cold; Copilot CLI stays cold by default. Ground
 * truth: this worker's agent children in /proc and the kit's own processes.
 */
import { MCPTestKit } from "@jest-m3/core";
import type { HarnessDefinition, ProviderDialect } from "@jest-m3/core/harness";
import {
  copilotProfile,
  geminiHarness,
  geminiProfile,
  kiloHarness,
  kiloProfile,
  opencodeHarness,
  opencodeProfile,
  qwenHarness,
  qwenProfile,
  stopWarmAcpAgents,
  type AcpProfile,
  type ResolvedCommonOptions,
} from "@jest-m3/harness-acp";
import {
  childrenRunning,
  expectOneColdSession,
  expectTwoSessionsOnOneWarmProcess,
  helloModel,
} from "@jest-m3/test-support";
import { shippingServer } from "./support/acp";

jest.setTimeout(120_000);

const hello = helloModel(stopWarmAcpAgents);

test("warm by default on Gemini CLI, OpenCode, Kilo Code and Qwen Code only; builtinTools or warm: false is cold", () => {
  const resolve = (
    profile: AcpProfile<ResolvedCommonOptions>,
    options: Record<string, unknown>,
  ): boolean => profile.resolveOptions(options).warm;
  for (const [harness, tool] of [
    [geminiProfile, "read_file"],
    [opencodeProfile, "read"],
    [kiloProfile, "read"],
    [qwenProfile, "read_file"],
  ] as const) {
    expect(resolve(harness, {})).toBe(true);
    expect(resolve(harness, { builtinTools: [tool] })).toBe(false);
    expect(resolve(harness, { builtinTools: [tool], warm: true })).toBe(true);
    expect(resolve(harness, { warm: false })).toBe(false);
  }
  expect(resolve(copilotProfile as AcpProfile<ResolvedCommonOptions>, {})).toBe(false);
});

describe.each([
  ["Gemini CLI", geminiHarness, "gemini", "gemini"],
  ["OpenCode", opencodeHarness, "opencode", "chat-completions"],
  ["Kilo Code", kiloHarness, "kilo", "chat-completions"],
  ["Qwen Code", qwenHarness, "qwen-code", "chat-completions"],
] as [string, HarnessDefinition, string, ProviderDialect][])(
  "%s",
  (agentName, harness, command, dialect) => {
    /** This worker's agent processes (the warm ones outlive their kits). */
    const agentPids = (): number[] => childrenRunning(process.pid, command);

    const select = (options?: Record<string, unknown>) => ({
      harness: harness.name,
      models: ["scripted-1"],
      provider: hello.model.providerFor(dialect),
      ...(options === undefined ? {} : { options }),
    });

    /** The agent processes the kit started for its sessions (cold ones). */
    const kitAgents = (kit: MCPTestKit) =>
      kit.processes.filter((child) => child.label === `${agentName} (${harness.name})`);

    test("two sessions with no warm option run one after the other on one warm process, none of the kit's", async () => {
      await stopWarmAcpAgents();
      await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [harness] });
      await expectTwoSessionsOnOneWarmProcess(kit, select(), shippingServer, {
        agentPids,
        kitAgents: () => kitAgents(kit),
        timeout: 60_000,
      });
    });

    test("a session with warm: false is cold: its own process, which works and is gone at close", async () => {
      await stopWarmAcpAgents();
      await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [harness] });
      await expectOneColdSession(kit, select({ warm: false }), shippingServer, {
        agentPids,
        kitAgents: () => kitAgents(kit),
        timeout: 60_000,
      });
    });
  },
);
