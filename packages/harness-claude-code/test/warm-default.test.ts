/**
 * Claude Code is warm by default: a session whose selection leaves `warm` out runs on this
 * worker's warm pool (two sessions one after the other on one process, none of the kit's
 * own), except a session a warm process cannot serve (built-in tools, which would share
 * its one working directory), which opens cold on a process of its own and works. An
 * explicit `warm: true` with built-in tools is refused before anything starts. Ground
 * truth: this worker's stream-json children in /proc and the kit's own processes.
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit } from "@jest-m3/core";
import claudeCodeHarness, {
  InvalidClaudeCodeOptions,
  resolveClaudeCodeOptions,
  stopWarmClaudeCode,
  warmClaudeCodePids,
} from "@jest-m3/harness-claude-code";
import {
  expectOneColdSession,
  expectTwoSessionsOnOneWarmProcess,
  helloModel,
} from "@jest-m3/test-support";
import { claudePids, shippingServer } from "./support/claude";

jest.setTimeout(60_000);

const hello = helloModel(stopWarmClaudeCode);

const select = (options?: Record<string, unknown>) => ({
  harness: "claude-code",
  models: ["scripted-model"],
  provider: hello.model.providerFor("anthropic-messages"),
  ...(options === undefined ? {} : { options }),
});

/** The Claude Code processes the kit started for its sessions (cold ones). */
const kitClaude = (kit: MCPTestKit) => kit.processes.filter((child) => child.label === "claude");

test("warm by default: without the option, warm unless builtinTools; warm: false is cold", () => {
  expect(resolveClaudeCodeOptions({})).toMatchObject({ warm: true, warmByDefault: true });
  expect(resolveClaudeCodeOptions({ builtinTools: ["Read"] })).toMatchObject({
    warm: false,
    warmByDefault: true,
  });
  expect(resolveClaudeCodeOptions({ warm: false })).toMatchObject({
    warm: false,
    warmByDefault: false,
  });
  expect(resolveClaudeCodeOptions({ warm: true })).toMatchObject({
    warm: true,
    warmByDefault: false,
  });
});

test("two sessions with no warm option run one after the other on one warm process, none of the kit's", async () => {
  await stopWarmClaudeCode();
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  await expectTwoSessionsOnOneWarmProcess(kit, select(), shippingServer, {
    agentPids: claudePids,
    kitAgents: () => kitClaude(kit),
    timeout: 30_000,
    alsoWhileOpen: (pids) => expect(warmClaudeCodePids()).toEqual(pids),
  });
});

test("a session with builtinTools and no warm option is cold: its own process, which works and is gone at close", async () => {
  await stopWarmClaudeCode();
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  await expectOneColdSession(
    kit,
    select({ builtinTools: ["Read"] }),
    shippingServer,
    { agentPids: claudePids, kitAgents: () => kitClaude(kit), timeout: 30_000 },
    () => {
      expect(warmClaudeCodePids()).toEqual([]);
      // Claude Code offered the model its Read tool beside the server's: the option held.
      const offered = hello.model.journal.entries.flatMap(
        (entry) =>
          (entry.body as { tools?: { name?: string }[] }).tools?.map((tool) => tool.name) ?? [],
      );
      expect(offered).toContain("Read");
    },
  );
});

test("warm: true with builtinTools is still refused before anything starts", async () => {
  await stopWarmClaudeCode();
  await using kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
  const dir = await kit.tempDir("m3-warm-default-");
  const [agent] = kit.agents([select({ warm: true, builtinTools: ["Read"] })]);
  const session = agent!.session({
    server: shippingServer(join(dir, "calls.jsonl")),
    timeout: 30_000,
  });
  const error = await session.open().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidClaudeCodeOptions);
  expect((error as Error).message).toMatch(/warm.*cannot be combined with builtinTools/);
  expect(session.result).toHaveProperty("snapshot.outcome", ExecutionOutcome.FAILED);
  expect(kitClaude(kit)).toEqual([]);
  expect(claudePids()).toEqual([]);
  expect(warmClaudeCodePids()).toEqual([]);
});
