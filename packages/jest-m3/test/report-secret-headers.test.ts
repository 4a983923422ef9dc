// A secret header of an HTTP server spec (`headers: { "X-Api-Key": ... }`) is a secret by
// value in everything the run writes. A user's project run by Jest: a real Streamable HTTP
// MCP server that requires the header and echoes it back in its tool result; the session's
// calls go through the kit's capture. The server's own record says it echoed the value;
// then no file the run wrote (report.html, report.json, blob.json, executions/, the
// history, anything under the results folder) holds it, and merge-reports' run neither.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  jsonLines,
  makeUserProject,
  REPO,
  removeTempDir,
  runFolder,
  runJest,
} from "./support/user-project";

const testing = join(REPO, "packages", "core", "dist", "testing.js");
const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");
/** The header's value: handed to the test by a variable whose name says nothing of secrets. */
const VALUE = "hdr-value-3c9e41d07a5b";

const PROJECT = {
  "echo.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
import { mockServer, testHarness } from ${JSON.stringify(testing)};

test("a server that echoes its key header", async () => {
  const value = process.env.PLAIN_HEADER_VALUE!;
  await using mock = mockServer({
    name: "echo",
    requireHeaders: { "x-api-key": value },
    tools: [
      {
        name: "whoami",
        description: "Says which key the request carried.",
        handler: (_args, context) => "you called with key " + context.headers["x-api-key"],
      },
    ],
  });
  const server = { ...(await mock.http()), headers: { "X-Api-Key": value } };
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const [agent] = kit.agents([{ harness: "test", models: ["scripted-1"] }]);
  const session = agent!.session({ server });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send('call echo:whoami {"who":"me"}\\nreply done');
  }
  // Ground truth: the server got the header and answered with it.
  const text = (mock.calls[0]?.result?.content[0] as { text?: string } | undefined)?.text;
  expect(text).toBe("you called with key " + value);
  expect(session.result).toHaveToolCall("whoami", { turn, server: "echo", status: "success", count: 1 });
});
`,
};

let project: string | undefined;

afterAll(() => {
  if (!process.env.M3_KEEP) removeTempDir(project);
});

/** Every file under `dir` (not following the node_modules link), with its bytes. */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((entry) => !entry.startsWith("node_modules"))
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

test("an echoed secret header value is in no file the run or its merge writes", () => {
  project = makeUserProject(PROJECT);
  const run = runJest(project, { env: { PLAIN_HEADER_VALUE: VALUE }, timeoutMs: 150_000 });
  expect(run.status).toBe(0);
  expect(run.output).not.toContain(VALUE);
  const folder = runFolder(project);

  // The call was recorded, with the echo in it, by name.
  const [session] = readdirSync(join(folder, "executions")).flatMap((file) =>
    jsonLines<{
      turns: Array<{ toolCalls: Array<{ tool: string; result?: string; messages?: unknown[] }> }>;
    }>(join(folder, "executions", file)),
  );
  const call = session!.turns[0]!.toolCalls[0]!;
  expect(call.tool).toBe("whoami");
  expect(call.result).toContain("you called with key [redacted: echo header X-Api-Key]");
  expect(JSON.stringify(call.messages)).toContain("[redacted: echo header X-Api-Key]");

  // merge-reports of the run's folder: one more run folder, its blob and reports.
  const merged = spawnSync(process.execPath, [CLI, "merge-reports", folder], {
    cwd: project,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(merged.status).toBe(0);

  const written = filesUnder(join(project, ".m3"));
  const count = (name: string): number =>
    written.filter((file) => file.path.endsWith(`/${name}`)).length;
  // The run's and the merged run's reports and blobs, and the history both went into.
  expect(
    ["report.html", "report.json", "blob.json", "history.sqlite"].map((name) => count(name)),
  ).toEqual([2, 2, 2, 1]);
  expect(written.some((file) => file.path.startsWith(join(folder, "executions")))).toBe(true);
  const holding = written
    .filter((file) => file.bytes.includes(VALUE))
    .map((file) => file.path.slice(project!.length));
  expect(holding).toEqual([]);
  const html = readFileSync(join(folder, "report.html"), "utf8");
  expect(html).toContain("[redacted: echo header X-Api-Key]");
}, 180_000);
