// A planted secret: a credentialEnv value (the model provider's key) and an HTTP
// authorization header. A user's project runs a real Codex session with both, fails on
// purpose so the reporter prints a transcript, and then every file the run wrote, every
// file in the kit's temporary folders while the session was open, every trace and the
// whole output are searched: only the variable names may appear, never the values.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { filesContaining } from "@jest-m3/test-support";
import { makeUserProject, REPO, runJest } from "./support/user-project";

const repo = REPO;
const KEY = "sk-m3-planted-key-7f3a91";
const HEADER = "m3-planted-header-52be07";

const projectTest = (shippingScript: string) => `
import { spawn } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit, expect } from "jest-m3";
import { startScriptedModel } from "@jest-m3/scripted-model";

function scan(dir: string, needles: string[], found: string[]): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) scan(path, needles, found);
    else if (stat.isFile() && needles.some((needle) => readFileSync(path).includes(needle))) found.push(path);
  }
}

test("a session with a planted key and header", async () => {
  const needles = [process.env.M3_PLANTED_KEY!, process.env.M3_PLANTED_HEADER!];
  await using model = await startScriptedModel({
    rules: [{ when: { user: "quote" }, steps: [
      { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
      { reply: "The quote is {{result.amount}}." },
    ] }],
  });
  const http = spawn(process.execPath, [${JSON.stringify(shippingScript)}, "--http", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => {
    let seen = "";
    http.stdout!.on("data", (chunk: Buffer) => { seen += chunk; const m = /listening (\\S+)/.exec(seen); if (m) resolve(m[1]!); });
  });
  try {
    await using kit = new MCPTestKit({ env: {} });
    const started = Date.now();
    const [agent] = kit.agents([{
      harness: "codex",
      models: ["gpt-5.5"],
      provider: { ...model.provider, envKey: "SCRIPTED_API_KEY" },
      credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_KEY" },
    }]);
    const session = agent!.session({
      server: { name: "shipping", url, headers: { authorization: "Bearer " + process.env.M3_PLANTED_HEADER } },
      timeout: 60_000,
    });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("quote please");
      // While the session is open: every file in the kit's temporary folders (the Codex home,
      // its config, logs and sqlite state, the workspace).
      const found: string[] = [];
      for (const name of readdirSync(tmpdir())) {
        const path = join(tmpdir(), name);
        if (name.startsWith("m3-") && lstatSync(path).mtimeMs >= started - 1000) scan(path, needles, found);
      }
      writeFileSync(join(__dirname, "open-session-hits.json"), JSON.stringify(found));
    }
    writeFileSync(join(__dirname, "evidence.json"), JSON.stringify({
      authorization: model.journal.entries[0]?.headers.authorization ?? null,
      trace: session.result,
      turnOutcome: turn.snapshot.outcome,
      calls: turn.toolCalls.map((call) => call.status),
    }));
    // Fails on purpose: the reporter then prints this session's transcript.
    expect(session.result).toHaveToolCall("shipping_quote", { arguments: { weight_kg: 99 } });
  } finally {
    http.kill("SIGKILL");
  }
});
`;

test("credential values and secret headers never reach a file, a trace, a report or the output", () => {
  const dir = makeUserProject({
    "secret.test.ts": projectTest(join(repo, "examples", "shipping", "shipping-server.mjs")),
  });
  try {
    const run = runJest(dir, {
      env: { M3_PLANTED_KEY: KEY, M3_PLANTED_HEADER: HEADER },
      timeoutMs: 150_000,
    });
    const output = run.output;

    // The run really used both secrets, and failed where it was meant to.
    const evidence = JSON.parse(readFileSync(join(dir, "evidence.json"), "utf8")) as {
      authorization: string | null;
      turnOutcome: string;
      calls: string[];
    };
    expect(evidence.authorization).toBe("Bearer <redacted>");
    expect([evidence.turnOutcome, evidence.calls]).toEqual(["completed", ["success"]]);
    expect(run.status).toBe(1);
    expect(output).toContain("a session with a planted key and header — what the agent did");
    expect(readdirSync(join(dir, ".m3", "runs"))).toHaveLength(1);

    // Nowhere: not in the kit's folders while open, the results folder, traces, output.
    expect(JSON.parse(readFileSync(join(dir, "open-session-hits.json"), "utf8"))).toEqual([]);
    expect(filesContaining(dir, [KEY, HEADER])).toEqual([]);
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(HEADER);
    // The names may appear: they say what was configured.
    expect(readFileSync(join(dir, "evidence.json"), "utf8")).toContain("authorization");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
