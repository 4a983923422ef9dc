/**
 * A workspace on a real Claude Code session: the agent's own file tools (Read, then Edit,
 * turned on with `options: { builtinTools }`) and an MCP server started in the workspace
 * (`cwd: "workspace"`) change files in one turn, and both changes are in `result.workspace`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, expect } from "jest-m3";
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import { useScriptedModel } from "@jest-m3/test-support";
import { filesServer, sourceProject } from "./support/files-server";

jest.setTimeout(120_000);

describe("a workspace on a real Claude Code session", () => {
  let kit: MCPTestKit;
  const model = useScriptedModel({
    rules: [
      {
        name: "edit with both",
        when: { user: "fix the greeting" },
        steps: [
          { call: "files:where" },
          { call: "builtin:Read", args: { file_path: "{{result.cwd}}/greeting.txt" } },
          {
            call: "builtin:Edit",
            args: {
              file_path: "{{results.0.cwd}}/greeting.txt",
              old_string: "helo",
              new_string: "hello",
            },
          },
          { call: "files:write_file", args: { path: "from-mcp.txt", content: "mcp\n" } },
          { reply: "Fixed." },
        ],
      },
    ],
  });
  beforeAll(() => {
    kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  });
  afterAll(() => kit.close());

  test("the agent's Edit tool and an MCP server's write are both in the diff", async () => {
    const { source, log } = await sourceProject(kit, "m3-workspace-test-", {
      "greeting.txt": "helo world\n",
    });
    const [agent] = kit.agents([
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: model.providerFor("anthropic-messages"),
        options: { builtinTools: ["Read", "Edit"] },
      },
    ]);
    const session = agent!.session({
      server: filesServer(log),
      workspace: { copy: source },
      timeout: 90_000,
    });
    {
      await using open = await session.open();
      await open.send("Please fix the greeting.");
    }
    const result = session.result;
    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(result).toHaveToolCall("write_file", { server: "files", status: "success", count: 1 });
    const workspace = result.workspace!;
    expect(readFileSync(log, "utf8")).toContain(JSON.stringify(workspace.path));
    expect(result).toHaveChangedFiles([
      { path: "from-mcp.txt", change: "added" },
      { path: "greeting.txt", change: "modified" },
    ]);
    expect(workspace.changes[1]!.diff).toBe(
      "--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1,1 +1,1 @@\n-helo world\n+hello world\n",
    );
    expect(result).toHaveFileContent("greeting.txt", "hello world\n");
    expect(readFileSync(join(source, "greeting.txt"), "utf8")).toBe("helo world\n");
    expect(existsSync(workspace.path)).toBe(false);
  });
});
