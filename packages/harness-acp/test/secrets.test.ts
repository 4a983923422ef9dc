/**
 * Planted secrets on both agents: the provider's key (a credentialEnv value), an HTTP
 * server's authorization header and a secret in a stdio server's environment. A real
 * session uses all three; then every file in the kit's temporary folders (the agent's
 * HOME, XDG folders and TMPDIR with its databases, logs and chats, its policy or config
 * file, the workspace, the wire capture's folder), the session's trace and events are
 * searched while the session is still open: the values never appear. The stdio server
 * does not see the agent's key (blanked).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { filesContaining, kitTempDirs } from "@jest-m3/test-support";
import { fixturePath } from "@jest-m3/test-support";
import { startHttpShipping } from "./support/acp";

jest.setTimeout(120_000);

const KEY = "sk-m3-planted-acp-key-71c2e9";
const HEADER = "m3-planted-acp-header-0d4b83";
const SERVER_SECRET = "m3-planted-acp-server-secret-9a15f7";

let model: ScriptedModel;
let shippingHttp: Awaited<ReturnType<typeof startHttpShipping>> | undefined;
let url: string;
beforeAll(async () => {
  process.env.M3_PLANTED_ACP_KEY = KEY;
  model = await startScriptedModel({
    rules: [
      {
        when: { user: "quote" },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { call: "local:shipping_quote", args: { weight_kg: 3, zone: "local" } },
          { reply: "Both quotes are ready." },
        ],
      },
    ],
  });
  shippingHttp = await startHttpShipping();
  url = shippingHttp.url;
});
afterAll(async () => {
  try {
    await model?.close();
  } finally {
    await shippingHttp?.stop();
    delete process.env.M3_PLANTED_ACP_KEY;
  }
});

test.each([
  ["gemini", "gemini"],
  ["opencode", "chat-completions"],
] as const)(
  "%s: a key, a header and a server secret reach no file, trace or event; the stdio server gets no key",
  async (harness, dialect: ProviderDialect) => {
    const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    try {
      const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
      const [agent] = kit.agents([
        {
          harness,
          models: ["scripted-1"],
          provider: { ...model.providerFor(dialect), envKey: "SCRIPTED_API_KEY" },
          credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_ACP_KEY" },
        },
      ]);
      const session = agent!.session({
        servers: [
          { name: "shipping", url, headers: { authorization: `Bearer ${HEADER}` } },
          {
            name: "local",
            command: process.execPath,
            args: [fixturePath("env-server.mjs"), "GEMINI_API_KEY", "SCRIPTED_API_KEY"],
            env: { ENV_LOG: envLog, SHIPPING_TOKEN: SERVER_SECRET },
          },
        ],
        timeout: 90_000,
      });
      const needles = [KEY, HEADER, SERVER_SECRET];
      {
        await using open = await session.open();
        const turn = await open.send("quote please");
        expect(turn.snapshot.outcome).toBe("completed");
        expect(turn.toolCalls.map((call) => [call.server, call.status, call.evidence])).toEqual([
          ["shipping", "success", "both"],
          ["local", "success", "both"],
        ]);
        const dirs = kitTempDirs(kit);
        expect(dirs.length).toBeGreaterThan(2);
        expect(dirs.flatMap((dir) => filesContaining(dir, needles))).toEqual([]);
      }
      const everything = JSON.stringify([session.result, session.result.trace]);
      for (const needle of needles) expect(everything).not.toContain(needle);
      const seen = readFileSync(envLog, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, string | null>);
      expect(seen.length).toBeGreaterThan(0);
      for (const entry of seen) {
        for (const value of Object.values(entry)) expect([null, ""]).toContain(value);
      }
    } finally {
      await kit.close();
    }
  },
);
