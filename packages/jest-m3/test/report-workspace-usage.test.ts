// A session's workspace diff and its model usage through the reporting path, on a real
// child Jest run: a real Codex session (the preset's scripted model behind the provider
// tap) edits a copied workspace through a real MCP server that logs every file it touched.
// Then report.json (each changed path, a diff cut short, a binary marked; per-turn tokens,
// model requests, the catalog cost), the page in headless Chromium (a collapsible diff per
// file, markup in a file shown as text, nothing executed), the history (changed paths,
// tokens per session) and its page (tokens over time).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { main } from "../dist/cli/main";
import { queryRows } from "../dist/store/engine";
import { readHistory } from "../dist/store/history";
import { withChromium } from "./support/chromium";
import {
  jsonLines,
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
} from "./support/user-project";

const FILES_SERVER = join(__dirname, "fixtures", "workspace-files-server.mjs");
const MARKUP = '<script>window.m3Pwned = 1</script><img src=x class="m3-injected">';
const BIG = Array.from({ length: 900 }, (_, i) => `line ${i} of a large generated file`).join("\n");
const BYTES = Buffer.from([0, 159, 146, 150, 0, 1, 2, 3]).toString("base64");

const script = JSON.stringify({
  rules: [
    {
      name: "edit",
      when: { user: "edit the project" },
      steps: [
        { call: "files:write_file", args: { path: "notes.md", content: `# Notes\n${MARKUP}\n` } },
        { call: "files:rename_file", args: { from: "draft.md", to: "final.md" } },
        { call: "files:write_bytes", args: { path: "blob.bin", base64: BYTES } },
        { call: "files:write_file", args: { path: "big.txt", content: BIG } },
        { reply: "Edited." },
      ],
    },
  ],
});

const editTest = `
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit, expect } from "jest-m3";

test("edits the project", async () => {
  const source = mkdtempSync(join(tmpdir(), "m3-report-ws-"));
  writeFileSync(join(source, "notes.md"), "# Notes\\ntodo\\n");
  writeFileSync(join(source, "draft.md"), "a draft\\n");
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const session = agent!.session({
    server: { name: "files", command: process.execPath, args: [${JSON.stringify(FILES_SERVER)}], cwd: "workspace", env: { FILES_LOG: process.env.FILES_LOG! } },
    workspace: { copy: source },
    timeout: 90_000,
  });
  {
    await using open = await session.open();
    await open.send("Please edit the project.");
  }
  expect(session.result).toHaveChangedFiles(["big.txt", "blob.bin", "final.md", "notes.md"], { mode: "superset" });
});
`;

interface Change {
  path: string;
  change: string;
  from: string | null;
  binary: boolean;
  diff: string | null;
  clipped: boolean;
}
interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  requests: number;
}
interface Session {
  executionId: string;
  workspace: { kind: string; changes: Change[] };
  usage: Usage | null;
  modelRequestCount: number | null;
  catalogCost: {
    servers: { server: string; tools: { name: string; bytes: number }[]; bytes: number }[];
    agentTools: { name: string; bytes: number }[];
    bytes: number;
    estimatedTokens: number;
  };
  turns: {
    usage: Usage | null;
    modelRequests: { usage: Usage | null; tools: number; toolBytes: number; toolCalls: string[] }[];
  }[];
}

let project: string | undefined;
afterAll(() => removeTempDir(project));

test("workspace diffs and model usage: report.json, the page, the history and its page", async () => {
  project = makeUserProject({
    "m3.config.json": JSON.stringify({
      harnesses: ["codex"],
      scriptedModel: { script: "model-script.json" },
    }),
    "model-script.json": script,
    "edit.test.ts": editTest,
  });
  const log = join(project, "files-log.jsonl");
  const run = runJest(project, { timeoutMs: 240_000, env: { FILES_LOG: log } });
  expect(run.output).toContain("1 passed");
  const dir = runFolder(project);
  const json = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as {
    sessions: Session[];
  };
  const [session] = json.sessions;

  // The workspace: every path the server's own log says it touched, as the diff.
  const touched = jsonLines<{ op: string; path?: string; cwd: string }>(log);
  expect(touched.map((entry) => entry.op)).toEqual([
    "write_file",
    "rename_file",
    "write_bytes",
    "write_file",
  ]);
  const changes = session!.workspace.changes;
  expect(session!.workspace.kind).toBe("copy");
  expect(changes.map((c) => [c.path, c.change, c.from, c.binary])).toEqual([
    ["big.txt", "added", null, false],
    ["blob.bin", "added", null, true],
    ["final.md", "renamed", "draft.md", false],
    ["notes.md", "modified", null, false],
  ]);
  const notes = changes.find((c) => c.path === "notes.md")!;
  expect(notes.diff).toContain(`+${MARKUP}`);
  expect(notes.diff).toContain("-todo");
  const big = changes.find((c) => c.path === "big.txt")!;
  expect(big.clipped).toBe(true);
  expect(big.diff!.length).toBeLessThan(20_200);
  expect(big.diff).toContain("diff cut short");
  expect(changes.find((c) => c.path === "blob.bin")!.diff).toBeNull();

  // Usage: the turn's tokens add up its model requests; the catalog cost names the tools.
  const [turn] = session!.turns;
  const generations = turn!.modelRequests.filter((request) => request.usage !== null);
  expect(generations.length).toBeGreaterThanOrEqual(5); // four calls and the reply
  expect(turn!.usage!.inputTokens).toBe(
    generations.reduce((sum, request) => sum + request.usage!.inputTokens, 0),
  );
  expect(turn!.usage!.inputTokens).toBeGreaterThan(0);
  expect(turn!.usage!.requests).toBe(generations.length);
  expect(generations.flatMap((request) => request.toolCalls).join(" ")).toMatch(/write_file/);
  expect(session!.usage!.inputTokens).toBeGreaterThanOrEqual(turn!.usage!.inputTokens);
  // The catalog cost: the files server's tools as the model was first offered them.
  const cost = session!.catalogCost;
  const server = cost.servers.find((server) => server.server === "files")!;
  expect(server.tools.map((tool) => tool.name).join(" ")).toMatch(/write_file/);
  expect(server.tools.map((tool) => tool.name).join(" ")).toMatch(/rename_file/);
  expect(server.bytes).toBe(server.tools.reduce((sum, tool) => sum + tool.bytes, 0));
  expect(server.bytes).toBeGreaterThan(0);
  expect(cost.estimatedTokens).toBe(Math.ceil(cost.bytes / 4));
  expect(cost.bytes).toBe(
    server.bytes + cost.agentTools.reduce((sum, tool) => sum + tool.bytes, 0),
  );
  const first = turn!.modelRequests.find((request) => request.tools > 0)!;
  expect(cost.agentTools.length).toBeGreaterThan(0);
  expect(cost.agentTools.length).toBeLessThanOrEqual(first.tools);

  // The page: a collapsible diff per file, markup as text; tokens and requests per turn.
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(join(dir, "report.html")).href);
    await page.locator(".row", { hasText: "edits the project" }).first().click();
    const files = page.locator("#detail .workspace details.file-diff");
    expect(await files.count()).toBe(4);
    const notesDiff = files.filter({ hasText: "modified notes.md" });
    expect(await notesDiff.locator("pre.diff").isVisible()).toBe(false);
    await notesDiff.locator("summary").click();
    expect(await notesDiff.locator("pre.diff").isVisible()).toBe(true);
    expect(await notesDiff.locator("pre.diff .add").allTextContents()).toContain(`+${MARKUP}`);
    expect(await files.filter({ hasText: "blob.bin" }).textContent()).toContain("binary");
    expect(await page.locator("#detail .turn-usage").first().textContent()).toContain(
      `tokens: ${turn!.usage!.inputTokens} in · ${turn!.usage!.outputTokens} out`,
    );
    expect(await page.locator("#detail table.model-requests tbody tr").count()).toBe(
      turn!.modelRequests.length,
    );
    expect(await page.locator("#detail .catalog-cost").textContent()).toContain(
      `tool catalog cost: ${cost.bytes} bytes (about ${cost.estimatedTokens} tokens) in all`,
    );
    expect(await page.locator("#detail .catalog-server").textContent()).toContain(
      `server files: ${server.tools.length} tool(s), ${server.bytes} bytes`,
    );
    expect(await page.locator("img.m3-injected").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { m3Pwned?: number }).m3Pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  // The history: changed paths and tokens per session; its page shows tokens over time.
  const db = await readHistory(join(project, ".m3", "history.sqlite"));
  try {
    expect(
      queryRows(db, "SELECT path, change, from_path, binary FROM changed_paths ORDER BY path"),
    ).toEqual([
      { path: "big.txt", change: "added", from_path: null, binary: 0 },
      { path: "blob.bin", change: "added", from_path: null, binary: 1 },
      { path: "final.md", change: "renamed", from_path: "draft.md", binary: 0 },
      { path: "notes.md", change: "modified", from_path: null, binary: 0 },
    ]);
    expect(queryRows(db, "SELECT input_tokens, output_tokens FROM sessions")).toEqual([
      { input_tokens: session!.usage!.inputTokens, output_tokens: session!.usage!.outputTokens },
    ]);
  } finally {
    db.close();
  }
  const out = join(project, "history.html");
  const code = await main(["show-history", "--out", out], {
    cwd: project,
    out: () => undefined,
    err: () => undefined,
  });
  expect(code).toBe(0);
  const html = readFileSync(out, "utf8");
  expect(html).toContain('<table id="tokens">');
  expect(html).toContain(
    `${session!.usage!.inputTokens} in / ${session!.usage!.outputTokens} out</td>`,
  );
}, 300_000);
