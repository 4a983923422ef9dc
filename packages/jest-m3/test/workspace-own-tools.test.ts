/**
 * The agent's own file tool in a workspace, on Gemini CLI, OpenCode and Pi (real binaries,
 * the scripted model): with `options: { builtinTools: [<its write tool>] }` (OpenCode's
 * `write` tool is turned on by its permission name, `edit`) the agent writes
 * a file itself, in its working directory (the session's workspace), and the write is in
 * `result.workspace` while no MCP call is recorded for it. (Claude Code's Edit is in
 * workspace-claude-code.test.ts.)
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, expect } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { useScriptedModel } from "@jest-m3/test-support";
import { sourceProject } from "./support/files-server";

jest.setTimeout(180_000);

const model = useScriptedModel({
  rules: [
    ...(
      [
        ["gemini", "builtin:write_file", { file_path: "CHANGELOG.md", content: "## 1.0\n" }],
        ["opencode", "builtin:write", { filePath: "CHANGELOG.md", content: "## 1.0\n" }],
        ["pi", "builtin:write", { path: "CHANGELOG.md", content: "## 1.0\n" }],
      ] as const
    ).map(([agent, call, args]) => ({
      name: `own write on ${agent}`,
      when: { user: `write the changelog with ${agent}` },
      steps: [{ call, args: { ...args } }, { reply: "Written." }],
    })),
  ],
});

test.each([
  ["gemini", "gemini", "scripted-1", "write_file"],
  ["opencode", "chat-completions", "scripted-1", "edit"],
  ["pi", "responses", "scripted-model", "write"],
] as const)(
  "%s's own write tool edits the workspace; the diff has it, the trace has no MCP call",
  async (harness, dialect: ProviderDialect, modelName, tool) => {
    await using kit = new MCPTestKit({ env: {} });
    const { source } = await sourceProject(kit, "m3-workspace-test-", { "readme.md": "stays\n" });
    const [agent] = kit.agents([
      {
        harness,
        models: [modelName],
        provider: model.providerFor(dialect),
        options: { builtinTools: [tool] },
      },
    ]);
    const session = agent!.session({
      server: {
        name: "shipping",
        command: process.execPath,
        args: [join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs")],
      },
      workspace: { copy: source },
      timeout: 120_000,
    });
    {
      await using open = await session.open();
      await open.send(`Please write the changelog with ${harness}.`, { timeout: 120_000 });
    }
    const result = session.result;
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveChangedFiles([{ path: "CHANGELOG.md", change: "added" }]);
    expect(result).toHaveFileContent("CHANGELOG.md", "## 1.0\n");
    expect(result.trace.toolCalls).toEqual([]);
    expect(existsSync(join(source, "CHANGELOG.md"))).toBe(false);
    expect(existsSync(result.workspace!.path)).toBe(false);
    model.journal.assertNoProblems();
  },
);
