// The example of docs/workspaces.md, verbatim (packages/jest-m3/test/docs.test.ts checks it).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, ExecutionOutcome, expect, type StdioServer } from "jest-m3";
import { startScriptedModel } from "@jest-m3/scripted-model";

// A server that writes files in its working directory; "workspace" is the agent's.
const files: StdioServer = {
  name: "files",
  command: process.execPath,
  args: [join(__dirname, "fixtures", "workspace-files-server.mjs")],
  cwd: "workspace",
};

test("the server's edits are the session's diff", async () => {
  await using model = await startScriptedModel({
    rules: [
      {
        name: "edit",
        when: { user: "rename the draft" },
        steps: [
          { call: "files:write_file", args: { path: "notes.md", content: "# Notes\nshipped\n" } },
          { call: "files:rename_file", args: { from: "draft.md", to: "final.md" } },
          { reply: "Done." },
        ],
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {} });
  const project = await kit.tempDir("project-");
  writeFileSync(join(project, "notes.md"), "# Notes\ntodo\n");
  writeFileSync(join(project, "draft.md"), "a draft\n");

  const [agent] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = agent!.session({ server: files, workspace: { copy: project }, timeout: 60_000 });
  {
    await using open = await session.open();
    await open.send("Please rename the draft and update the notes.");
  }
  const result = session.result;

  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(result).toHaveChangedFiles([
    { path: "final.md", change: "renamed", from: "draft.md" },
    { path: "notes.md", change: "modified" },
  ]);
  expect(result).toHaveFileContent("notes.md", expect.stringContaining("shipped"));
  expect(result.workspace?.changes[1]?.diff).toContain("-todo\n+shipped\n");
});
