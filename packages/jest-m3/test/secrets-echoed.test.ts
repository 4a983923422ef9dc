// Secrets by value, when a server echoes them (issue 29, item 3). A user's project runs a real
// Codex session through the run's scripted model (m3.config.json) with two real SDK servers
// that echo the credential they were given: over stdio a credentialEnv value (handed to the
// server through its env), over Streamable HTTP its `X-Api-Key` header. The key comes back in
// a tool result and in a tool error; the model repeats it in a later call's arguments and in
// its reply; the test stores a trajectory snapshot, fails a matcher inside trials(), and a
// direct client's call fails with a JSON-RPC error that quotes the key (so the error's cause
// holds it too). Neither variable's name says it is a credential: only what the kits handed
// out tells the run they are secrets. Then every file of the project (snapshots, .m3/**,
// Jest's --json output) and Jest's whole output are searched for both values: none.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { filesContaining, fixturePath } from "@jest-m3/test-support";
import {
  jsonLines,
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
} from "./support/user-project";

const KEY = "m3-echoed-credential-4c1d9e";
const HEADER = "m3-echoed-header-8a27f3";
const SERVER = fixturePath("echo-secret-server.mjs");

const SCRIPT = JSON.stringify({
  rules: [
    {
      name: "echo",
      when: { user: { regex: "echo" } },
      steps: [
        { call: "keys:reveal", args: {} },
        { call: "web:reveal", args: {} },
        { call: "keys:refuse", args: { seen: "{{results | json}}" } },
        { reply: "Your keys: {{results | json}}" },
      ],
    },
  ],
});

// Each file has its own runtime: the direct client's file knows the header only from its
// own auth, not from the agent session's spec.
const HEADER_PART = `
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, TrialsFailed, expect, secretFromEnv, trials } from "jest-m3";

const SERVER = ${JSON.stringify(SERVER)};
let url = "";
let http: ReturnType<typeof spawn> | undefined;
beforeAll(async () => {
  http = spawn(process.execPath, [SERVER, "--http", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ECHO_CALL_LOG: join(__dirname, "calls.jsonl") },
  });
  url = await new Promise<string>((resolve) => {
    let seen = "";
    http!.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk;
      const found = /listening (\\S+)/.exec(seen);
      if (found) resolve(found[1]!);
    });
  });
});
afterAll(() => http?.kill("SIGKILL"));

`;

const AGENT_TEST = `${HEADER_PART}test("servers echo the key to a real agent", async () => {
  let result: unknown;
  const trial = trials(1, async () => {
    await using kit = new MCPTestKit({ env: {} });
    const [agent] = kit.agents([
      { harness: "codex", models: ["gpt-5.5"], credentialEnv: { SCRIPTED_API_KEY: "M3_ECHO_SOURCE" } },
    ]);
    const session = agent!.session({
      servers: [
        {
          name: "keys",
          command: process.execPath,
          args: [SERVER],
          env: { ECHO_SECRET: process.env.M3_ECHO_SOURCE!, ECHO_CALL_LOG: join(__dirname, "calls.jsonl") },
        },
        { name: "web", url, headers: { "X-Api-Key": process.env.M3_ECHO_HEADER! } },
      ],
      timeout: 120_000,
    });
    let reply = "";
    {
      await using open = await session.open();
      const turn = await open.send("echo the keys");
      reply = turn.response?.text ?? "";
    }
    // Ground truth for the outer test, without the values: did the reply hold them?
    appendFileSync(join(__dirname, "evidence.jsonl"), JSON.stringify({
      // The kit hands the test the reply with the values already replaced by their names.
      replyHadKey: reply.includes("[redacted: M3_ECHO_SOURCE]"),
      replyHadHeader: reply.includes("[redacted: web header X-Api-Key]"),
      calls: session.result.turns.flatMap((turn) => turn.toolCalls).map((call) => call.server + ":" + call.tool + " " + call.status),
    }) + "\\n");
    expect(session.result).toMatchTrajectorySnapshot();
    result = session.result;
    // Fails on purpose (the trial, in the trials ledger): the refused call with its error text.
    expect(session.result).toHaveToolCall("refuse", { status: "success" });
  });
  await expect(trial).rejects.toThrow(TrialsFailed);
  // Fails on purpose (the test, in Jest's output and reporters), with the same text.
  expect(result).toHaveToolCall("refuse", { status: "success" });
});

`;

const DIRECT_TEST = `${HEADER_PART}test("a direct call's result that quotes the key fails a plain matcher", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct({ name: "web", url }, { auth: { headers: { "X-Api-Key": secretFromEnv("M3_ECHO_HEADER") } } });
  const result = await client.callTool("reveal", {});
  expect(result.content).toEqual([]);
});

test("a direct call fails with an error that quotes the key", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct({ name: "web", url }, { auth: { headers: { "X-Api-Key": secretFromEnv("M3_ECHO_HEADER") } } });
  await client.getPrompt("leak");
});
`;

let dir: string | undefined;
afterEach(() => removeTempDir(dir));

test("an echoed credential or header value is in no file of the project and not in Jest's output", () => {
  dir = makeUserProject({
    "m3.config.json": JSON.stringify({ scriptedModel: { script: "script.json" } }),
    "script.json": SCRIPT,
    "echo.test.ts": AGENT_TEST,
    "direct.test.ts": DIRECT_TEST,
  });
  const run = runJest(dir, {
    args: ["--ci=false", "--json", "--outputFile=jest-results.json"],
    env: { M3_ECHO_SOURCE: KEY, M3_ECHO_HEADER: HEADER },
    timeoutMs: 300_000,
  });

  // The scenario really happened: the servers got the calls and echoed, the model repeated
  // the values, both tests failed where they were meant to, the snapshot and trials exist.
  const calls = jsonLines<{ tool?: string; prompt?: string; sentBackKey?: boolean }>(
    join(dir, "calls.jsonl"),
  );
  expect(calls.find((call) => call.tool === "refuse")?.sentBackKey).toBe(true);
  expect(calls.map((call) => call.tool ?? `prompt ${call.prompt}`).sort()).toEqual([
    "prompt leak",
    "refuse",
    "reveal",
    "reveal",
    "reveal",
  ]);
  const [evidence] = jsonLines<{ replyHadKey: boolean; replyHadHeader: boolean; calls: string[] }>(
    join(dir, "evidence.jsonl"),
  );
  expect(evidence).toEqual({
    replyHadKey: true,
    replyHadHeader: true,
    calls: ["keys:reveal success", "web:reveal success", "keys:refuse tool_error"],
  });
  expect({ status: run.status, tail: run.output.slice(-3000) }).toMatchObject({ status: 1 });
  // Nowhere: not in a file of the project, not in what Jest printed.
  expect(filesContaining(dir, [KEY, HEADER])).toEqual([]);
  expect(run.output.includes(KEY)).toBe(false);
  expect(run.output.includes(HEADER)).toBe(false);

  // What the run wrote, with only names in place of the values.
  expect(run.output).toMatch(/Tests: +3 failed, 3 total/);
  expect(run.output).toContain("1 snapshot written");
  const results = JSON.parse(readFileSync(join(dir, "jest-results.json"), "utf8")) as {
    testResults: { assertionResults: { failureMessages: string[] }[] }[];
  };
  const failures = results.testResults.flatMap((file) =>
    file.assertionResults.flatMap((test) => test.failureMessages),
  );
  // The test's own failure (not the trial's, already scrubbed in the ledger): a matcher's.
  expect(failures.join("\n")).toContain("Error: expect(received).toHaveToolCall");
  expect(failures.join("\n")).toContain("refused key [redacted: M3_ECHO_SOURCE]");
  expect(failures.join("\n")).toContain("[cause]");
  expect(failures.join("\n")).toContain("the key is [redacted: M3_ECHO_HEADER]");
  const run0 = runFolder(dir);
  const trials = readdirSync(join(run0, "trials")).map((file) =>
    readFileSync(join(run0, "trials", file), "utf8"),
  );
  expect(trials).toHaveLength(1);
  expect(trials[0]).toContain("refused key [redacted: M3_ECHO_SOURCE]");
  const journal = readFileSync(join(run0, "model-journal.json"), "utf8");
  expect(journal).toContain("the key is <redacted:");
  const snapshot = readFileSync(join(dir, "__snapshots__", "echo.test.ts.snap"), "utf8");
  expect(snapshot).toContain("the key is [redacted: M3_ECHO_SOURCE]");
  expect(snapshot).toContain("the key is [redacted: web header X-Api-Key]");
}, 400_000);
