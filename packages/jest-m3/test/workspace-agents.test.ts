/**
 * A workspace on Gemini CLI, OpenCode (both over ACP) and Pi (real binaries, the scripted
 * model): an MCP server started in the workspace (`cwd: "workspace"`) writes and deletes
 * files through its tools, and `result.workspace` holds exactly what its log says it did.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { ExecutionOutcome, MCPTestKit, expect } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { useScriptedModel } from "@jest-m3/test-support";
import { filesLog, filesServer, sourceProject } from "./support/files-server";

jest.setTimeout(180_000);

const model = useScriptedModel({
  rules: [
    {
      name: "tidy",
      when: { user: "tidy the project" },
      steps: [
        { call: "files:write_file", args: { path: "docs/summary.md", content: "# Summary\n" } },
        { call: "files:delete_file", args: { path: "obsolete.txt" } },
        { reply: "Tidied." },
      ],
    },
  ],
});

describe.each([
  ["gemini", "gemini", "scripted-1"],
  ["opencode", "chat-completions", "scripted-1"],
  ["pi", "responses", "scripted-model"],
] as const)("a workspace on %s", (harness, dialect: ProviderDialect, modelName) => {
  test("the server's writes in the workspace are the session's diff", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const { source, log } = await sourceProject(kit, "m3-workspace-test-", {
      "obsolete.txt": "old\n",
      "readme.md": "stays\n",
    });
    const [agent] = kit.agents([
      { harness, models: [modelName], provider: model.providerFor(dialect) },
    ]);
    const session = agent!.session({
      server: filesServer(log),
      workspace: { copy: source },
      timeout: 120_000,
    });
    {
      await using open = await session.open();
      await open.send("Please tidy the project.", { timeout: 120_000 });
    }
    const result = session.result;
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    const workspace = result.workspace!;
    expect(
      filesLog(log).map((line) => [line.op, line.cwd, relative(workspace.path, line.path)]),
    ).toEqual([
      ["write_file", workspace.path, "docs/summary.md"],
      ["delete_file", workspace.path, "obsolete.txt"],
    ]);
    expect(result).toHaveChangedFiles([
      { path: "docs/summary.md", change: "added" },
      { path: "obsolete.txt", change: "deleted" },
    ]);
    expect(result).toHaveFileContent("docs/summary.md", "# Summary\n");
    expect(existsSync(join(source, "obsolete.txt"))).toBe(true);
    expect(existsSync(workspace.path)).toBe(false);
  });
});
