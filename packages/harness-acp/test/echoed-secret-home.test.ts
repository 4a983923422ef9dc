/**
 * An echoed credential inside the agent's own temporary home (docs/troubleshooting.md): an
 * HTTP MCP server (real SDK) echoes its `X-Api-Key` header in a tool result; Gemini CLI and
 * OpenCode keep what they saw (OpenCode's session database and log, Gemini CLI's chats and
 * error reports) inside the HOME, XDG folders and TMPDIR the kit made for the session. The
 * kit cannot rewrite the agent's own files, so it removes them: after `kit.close()` not one
 * of the kit's temporary folders exists, and no file left under the system temp folder by
 * the session holds the value.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import {
  filesContaining,
  fixturePath,
  kitTempDirs,
  startHttpServer,
  type HttpServerProcess,
} from "@jest-m3/test-support";

jest.setTimeout(120_000);

const HEADER = "m3-echoed-acp-header-5e90b1";
const SERVER = fixturePath("echo-secret-server.mjs");

let model: ScriptedModel;
let http: HttpServerProcess;
let url: string;
beforeAll(async () => {
  model = await startScriptedModel({
    rules: [
      {
        when: { user: "echo" },
        steps: [{ call: "web:reveal", args: {} }, { reply: "Done: {{result | json}}" }],
      },
    ],
  });
  http = await startHttpServer(SERVER);
  url = http.url;
});
afterAll(async () => {
  await model?.close();
  await http?.stop();
});

test.each([
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
] as const)(
  "%s: the temporary home that may hold an echoed header value is gone after close",
  async (harness, dialect: ProviderDialect) => {
    const started = Date.now();
    const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    let dirs: string[] = [];
    let heldWhileOpen: string[] = [];
    try {
      const [agent] = kit.agents([
        { harness, models: ["scripted-1"], provider: model.providerFor(dialect) },
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
    const recent = readdirSync(tmpdir())
      .map((name) => join(tmpdir(), name))
      .filter((path) => /^m3-/.test(path.slice(tmpdir().length + 1)))
      .filter((path) => statSync(path, { throwIfNoEntry: false })?.isDirectory())
      .filter((path) => (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= started);
    expect(recent.flatMap((dir) => filesContaining(dir, HEADER))).toEqual([]);
  },
);
