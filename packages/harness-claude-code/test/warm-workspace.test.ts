/**
 * Warm Claude Code with a workspace: a warm process keeps the working directory it was
 * started in, so it cannot work in a session's workspace. With `warm: true` such a session
 * is refused with `InvalidClaudeCodeOptions` naming `warm`, the workspace's kind and the
 * fix, before any Claude Code process starts (ground truth: this worker's stream-json
 * children in /proc); the same selection without a workspace opens a warm session as
 * before. With `warm` left out (the default: warm), a workspace session opens cold, on a
 * process of its own whose working directory is the workspace.
 */
import { mkdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit } from "@jest-m3/core";
import claudeCodeHarness, {
  InvalidClaudeCodeOptions,
  stopWarmClaudeCode,
  warmClaudeCodePids,
} from "@jest-m3/harness-claude-code";
import { helloModel } from "@jest-m3/test-support";
import { claudePids, shippingServer } from "./support/claude";

jest.setTimeout(120_000);

const hello = helloModel(stopWarmClaudeCode);

/** A project to copy (notes.md), this kit's Claude Code agent with `options`, and a server. */
async function projectAndAgent(kit: MCPTestKit, options?: Record<string, unknown>) {
  const root = await kit.tempDir("m3-claude-warm-ws-");
  const source = join(root, "project");
  mkdirSync(source);
  writeFileSync(join(source, "notes.md"), "todo\n");
  const [agent] = kit.agents([
    {
      harness: "claude-code",
      models: ["claude-sonnet-5-5"],
      provider: hello.model.providerFor("anthropic-messages"),
      ...(options ? { options } : {}),
    },
  ]);
  return { source, agent: agent!, server: shippingServer(join(root, "calls.jsonl")) };
}

test("a warm Claude Code refuses a session with a workspace before it starts, naming the option and the fix", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
  const { source, agent, server } = await projectAndAgent(kit, { warm: true });
  const before = claudePids();
  for (const workspace of [{ copy: source }, { readOnly: source }] as const) {
    const session = agent.session({ server, workspace, timeout: 60_000 });
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidClaudeCodeOptions);
    expect((error as Error).message).toMatch(
      new RegExp(
        `warm.*cannot serve a session with a workspace \\(${Object.keys(workspace)[0]!}\\): a warm Claude Code process keeps the working directory it was started in.*Leave warm out of the selections of workspace sessions`,
      ),
    );
    expect(session.result).toHaveProperty("snapshot.outcome", ExecutionOutcome.FAILED);
  }
  // No Claude Code was started for them, warm or cold.
  expect(kit.processes.filter((child) => child.label === "claude")).toEqual([]);
  expect(claudePids()).toEqual(before);

  // Without a workspace the same selection opens a warm session.
  const session = agent.session({ server, timeout: 60_000 });
  {
    await using open = await session.open();
    await open.send("Please say hello.");
  }
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(session.result.turns[0]?.response?.text).toBe("Hello.");
});

test("with warm left out, a workspace session is cold: its own Claude Code, working in the workspace", async () => {
  await stopWarmClaudeCode();
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  const { source, agent, server } = await projectAndAgent(kit);
  const session = agent.session({ server, workspace: { copy: source }, timeout: 60_000 });
  let cwd: string;
  {
    await using open = await session.open();
    const own = kit.processes.filter((child) => child.label === "claude");
    expect(own).toHaveLength(1);
    expect(claudePids()).toEqual([own[0]!.pid]);
    expect(warmClaudeCodePids()).toEqual([]);
    cwd = readlinkSync(`/proc/${own[0]!.pid}/cwd`);
    await open.send("Please say hello.");
  }
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(session.result.turns[0]?.response?.text).toBe("Hello.");
  // The agent worked in the session's copy of the project, not in a folder of its own.
  expect(session.result.workspace?.path).toBe(cwd);
  expect(cwd).not.toBe(source);
  expect(claudePids()).toEqual([]);
});
