/**
 * Codex's own file tool in a workspace (the real binary, the scripted model): with
 * `options: { builtinTools: ["apply_patch"], sandbox: "workspace-write" }` one scripted
 * turn edits a file with Codex's own `apply_patch` (run through its command tool,
 * `exec_command`, as Codex 0.171 offers it to a model it has no metadata for) and writes
 * another through an MCP server started in the workspace; both are in `result.workspace`,
 * and the allow-list still holds for MCP tools (the server's tool outside it is not
 * offered and never reached, ground truth: the server's own log and the model's journal).
 * Without the option Codex offers no command tool; a wrong tool name is refused before
 * anything starts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, expect } from "jest-m3";
import codexHarness, { InvalidCodexOptions } from "@jest-m3/harness-codex";
import { useScriptedModel } from "@jest-m3/test-support";
import { filesLog, filesServer, sourceProject } from "./support/files-server";

jest.setTimeout(120_000);

const PATCH = [
  "apply_patch <<'EOF'",
  "*** Begin Patch",
  "*** Update File: notes.md",
  "@@",
  " # Notes",
  "-todo",
  "+patched by codex",
  "*** End Patch",
  "EOF",
  "",
].join("\n");

const model = useScriptedModel({
  rules: [
    {
      name: "own tool and MCP",
      when: { user: "patch the notes and write the report" },
      steps: [
        { call: "builtin:exec_command", args: { cmd: PATCH } },
        {
          call: "files:write_file",
          args: { path: "out/run/report.json", content: '{"ok":true}\n' },
        },
        { reply: "Patched and written." },
      ],
    },
    { name: "hello", when: { user: "say hello" }, steps: [{ reply: "Hello." }] },
  ],
});

/** The tool names (flat, or `namespace/name`) the journal's requests since `from` offered. */
function offered(from: number): string[] {
  const names = new Set<string>();
  for (const entry of model.journal.entries.slice(from)) {
    const tools = (entry.body as { tools?: { name?: string; tools?: { name: string }[] }[] }).tools;
    for (const tool of tools ?? []) {
      if (tool.tools) for (const inner of tool.tools) names.add(`${tool.name}/${inner.name}`);
      else if (tool.name) names.add(tool.name);
    }
  }
  return [...names].sort();
}

test("Codex's own apply_patch and an MCP server both edit the workspace; the allow-list holds for MCP tools", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
  const { source, log } = await sourceProject(kit, "m3-codex-own-", {
    "notes.md": "# Notes\ntodo\n",
    "keep.txt": "kept\n",
  });
  const [agent] = kit.agents([
    {
      harness: "codex",
      models: ["scripted"],
      provider: model.provider,
      options: { builtinTools: ["apply_patch"], sandbox: "workspace-write" },
    },
  ]);
  const from = model.journal.entries.length;
  const session = agent!.session({
    server: filesServer(log),
    tools: ["files:write_file"],
    workspace: { copy: source, artifacts: ["out/**/*.json"] },
    timeout: 90_000,
  });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("Please patch the notes and write the report.", { timeout: 90_000 });
  }
  const result = session.result;

  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(turn.response?.text).toBe("Patched and written.");
  expect(result).toHaveChangedFiles([
    { path: "notes.md", change: "modified" },
    { path: "out/run/report.json", change: "added" },
  ]);
  expect(result).toHaveFileContent("notes.md", "# Notes\npatched by codex\n");
  expect(result.workspace?.changes[0]?.diff).toContain("-todo\n+patched by codex\n");
  expect(result.workspace?.artifacts.map((artifact) => artifact.path)).toEqual([
    "out/run/report.json",
  ]);
  // The edit was Codex's own: the MCP server made only the write, in the workspace.
  expect(filesLog(log).map((line) => line.op)).toEqual(["write_file"]);
  expect(result.trace.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
    ["files", "write_file", "success"],
  ]);
  // The model saw Codex's command tool, and of the MCP server only the allowed tool.
  const tools = offered(from);
  expect(tools).toContain("exec_command");
  expect(tools.filter((name) => name.startsWith("mcp__files/"))).toEqual(["mcp__files/write_file"]);
  // The source folder is untouched; the workspace is gone.
  expect(readFileSync(join(source, "notes.md"), "utf8")).toBe("# Notes\ntodo\n");
  expect(existsSync(result.workspace!.path)).toBe(false);
  model.journal.assertNoProblems();
});

test("without builtinTools Codex offers no command tool; a wrong name is refused before anything starts", async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
  const from = model.journal.entries.length;
  const [plain] = kit.agents([
    { harness: "codex", models: ["scripted"], provider: model.provider },
  ]);
  const session = plain!.session({
    server: filesServer(join(await kit.tempDir("m3-codex-own-"), "files.jsonl")),
    timeout: 90_000,
  });
  {
    await using open = await session.open();
    await open.send("Please say hello.", { timeout: 90_000 });
  }
  expect(session.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  const tools = offered(from);
  expect(tools).toContain("mcp__files/write_file");
  expect(tools).not.toContain("exec_command");

  const spawned = kit.processes.length;
  const [wrong] = kit.agents([
    {
      harness: "codex",
      models: ["scripted"],
      provider: model.provider,
      options: { builtinTools: ["Edit"] },
    },
  ]);
  const refused = wrong!.session({ server: filesServer(join(kit.cwd, "never.jsonl")) });
  const error = await refused.open().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidCodexOptions);
  expect((error as Error).message).toMatch(
    /builtinTools.*must be an array of Codex's own tools, "shell" or "apply_patch", got \["Edit"\]/,
  );
  expect(kit.processes.length).toBe(spawned);
});
