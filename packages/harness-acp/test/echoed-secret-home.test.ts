/**
 * An echoed credential inside the agent's own temporary home (docs/troubleshooting.md): an
 * HTTP MCP server (real SDK) echoes its `X-Api-Key` header in a tool result; Gemini CLI,
 * OpenCode and Qwen Code keep what they saw (OpenCode's session database and log, Gemini
 * CLI's chats and error reports, Qwen Code's chats) inside the HOME, XDG folders and TMPDIR
 * the kit made for the session. The kit cannot rewrite the agent's own files, so it removes
 * them: after `kit.close()` not one of the kit's temporary folders exists, and no file left
 * under the system temp folder by the session holds the value. A warm agent (the default) keeps its home, echo included,
 * for the sessions of its key until its pool stops (when the test file ends, at the
 * latest): then that home is gone too.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { defaultRuntime } from "@jest-m3/core/runner";
import { stopWarmAcpAgents } from "@jest-m3/harness-acp";
import {
  filesContaining,
  fixturePath,
  type HttpServerProcess,
  kitTempDirs,
  useScriptedModel,
  startHttpServer,
} from "@jest-m3/test-support";

jest.setTimeout(120_000);

const HEADER = "m3-echoed-acp-header-5e90b1";
const SERVER = fixturePath("echo-secret-server.mjs");

const model = useScriptedModel({
  rules: [
    {
      when: { user: "echo" },
      steps: [{ call: "web:reveal", args: {} }, { reply: "Done: {{result | json}}" }],
    },
  ],
});
let http: HttpServerProcess;
let url: string;
beforeAll(async () => {
  http = await startHttpServer(SERVER);
  url = http.url;
});
afterAll(async () => {
  await http?.stop();
});

test.each([
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
  ["qwen-code", "chat-completions"],
] as const)(
  "%s: the temporary home that may hold an echoed header value is gone after close",
  async (harness, dialect: ProviderDialect) => {
    const started = Date.now();
    const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    let dirs: string[] = [];
    let heldWhileOpen: string[] = [];
    try {
      const [agent] = kit.agents([
        {
          harness,
          models: ["scripted-1"],
          provider: model.providerFor(dialect),
          options: { warm: false },
        },
      ]);
      const session = agent!.session({
        servers: [{ name: "web", url, headers: { "X-Api-Key": HEADER } }],
        timeout: 90_000,
      });
      {
        await using open = await session.open();
        const turn = await open.send("echo the key");
        expect(turn.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
          ["web", "reveal", "success"],
        ]);
        // The kit hands the test the echo with the value replaced by its name.
        expect(turn.response?.text).toContain("[redacted: web header X-Api-Key]");
        dirs = [...kitTempDirs(kit)];
        heldWhileOpen = dirs.flatMap((dir) => filesContaining(dir, HEADER));
      }
    } finally {
      await kit.close();
    }
    // The agent did keep the echo in its own files (what the documentation warns about)...
    expect(heldWhileOpen.length).toBeGreaterThan(0);
    // ...and every folder the kit made is gone, with nothing of the session's left in tmp.
    expect(dirs.length).toBeGreaterThan(2);
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
    expect(recentKitDirs(started).flatMap((dir) => filesContaining(dir, HEADER))).toEqual([]);
  },
);

test.each([
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
  ["qwen-code", "chat-completions"],
] as const)(
  "%s, warm (the default): the warm home holds the echo until its pool stops, then is gone",
  async (harness, dialect: ProviderDialect) => {
    await stopWarmAcpAgents();
    const started = Date.now();
    // The folders the runtime hears of: the run's folder ledger, which a later run sweeps.
    const announced: string[] = [];
    const stopObserving = defaultRuntime().observe({
      tempDirCreated: (dir) => announced.push(dir),
    });
    const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    try {
      const [agent] = kit.agents([
        { harness, models: ["scripted-1"], provider: model.providerFor(dialect) },
      ]);
      const session = agent!.session({
        servers: [{ name: "web", url, headers: { "X-Api-Key": HEADER } }],
        timeout: 90_000,
      });
      await using open = await session.open();
      const turn = await open.send("echo the key");
      expect(turn.response?.text).toContain("[redacted: web header X-Api-Key]");
    } finally {
      await kit.close();
      stopObserving();
    }
    // The session is closed; the warm agent's home (not one of the kit's folders) keeps the
    // echo for the next session of its key, as docs/troubleshooting.md says...
    // It is in the run's folder ledger (what this process's runtime heard): a run killed
    // before its pools stop has it swept. Only this process's: the other Jest worker may run
    // a warm agent of the same kind meanwhile, with a home of its own in the same temp folder.
    const warmHomes = announced.filter((dir) => dir.includes(`m3-${harness}-warm-`));
    expect(warmHomes).toHaveLength(1);
    expect(recentKitDirs(started)).toContain(warmHomes[0]);
    expect(filesContaining(warmHomes[0]!, HEADER).length).toBeGreaterThan(0);
    // ...until the pool stops (the preset does it when the file ends): then nothing holds it.
    await stopWarmAcpAgents();
    expect(existsSync(warmHomes[0]!)).toBe(false);
    expect(recentKitDirs(started).flatMap((dir) => filesContaining(dir, HEADER))).toEqual([]);
  },
);

/** The `m3-` folders under the system temp folder changed since `started`. */
function recentKitDirs(started: number): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith("m3-"))
    .map((name) => join(tmpdir(), name))
    .filter((path) => {
      const stat = statSync(path, { throwIfNoEntry: false });
      return stat !== undefined && stat.isDirectory() && stat.mtimeMs >= started;
    });
}
