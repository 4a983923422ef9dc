/**
 * Planted secrets: the provider's key (a credentialEnv value), an HTTP server's
 * authorization header and a secret in a stdio server's environment. A real Claude Code
 * session uses all three; then every file in the kit's temporary folders (Claude Code's
 * HOME and config dir, its MCP logs, the workspace, the wire capture's folder), the
 * session's trace and events are searched while the session is still open: the values
 * never appear. The stdio server itself does not see Claude Code's key (blanked).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import claudeCodeHarness from "@jest-m3/harness-claude-code";
import { startScriptedModel } from "@jest-m3/scripted-model";
import { filesContaining, kitTempDirs } from "@jest-m3/test-support";
import { fixturePath } from "@jest-m3/test-support";
import { startHttpShipping } from "./support/claude";

jest.setTimeout(60_000);

const KEY = "sk-m3-planted-claude-key-5d21c0";
const HEADER = "m3-planted-claude-header-8e9f14";
const SERVER_SECRET = "m3-planted-server-secret-3b7a62";

test("a key, a header and a server secret reach no file, trace or event; the stdio server gets no key", async () => {
  process.env.M3_PLANTED_CLAUDE_KEY = KEY;
  await using model = await startScriptedModel({
    rules: [
      {
        when: { user: "quote" },
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
          { call: "local:shipping_quote", args: { weight_kg: 3, zone: "local" } },
          { reply: "The quote is {{result.amount}}." },
        ],
      },
    ],
  });
  const shippingHttp = await startHttpShipping();
  const { url } = shippingHttp;
  const kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
  try {
    const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
    const [agent] = kit.agents([
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: { ...model.providerFor("anthropic-messages"), envKey: "SCRIPTED_API_KEY" },
        credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_CLAUDE_KEY" },
      },
    ]);
    const session = agent!.session({
      servers: [
        { name: "shipping", url, headers: { authorization: `Bearer ${HEADER}` } },
        {
          name: "local",
          command: process.execPath,
          args: [
            fixturePath("env-server.mjs"),
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "SCRIPTED_API_KEY",
          ],
          env: { ENV_LOG: envLog, SHIPPING_TOKEN: SERVER_SECRET },
        },
      ],
      timeout: 60_000,
    });
    const needles = [KEY, HEADER, SERVER_SECRET];
    {
      await using open = await session.open();
      const turn = await open.send("quote please");
      expect(turn.snapshot.outcome).toBe("completed");
      expect(turn.toolCalls.map((call) => [call.server, call.status])).toEqual([
        ["shipping", "success"],
        ["local", "success"],
      ]);
      // While the session is open: every file of the kit's temporary folders.
      const dirs = kitTempDirs(kit);
      expect(dirs.length).toBeGreaterThan(2);
      expect(dirs.flatMap((dir) => filesContaining(dir, needles))).toEqual([]);
    }
    const everything = JSON.stringify([session.result, session.result.trace]);
    for (const needle of needles) expect(everything).not.toContain(needle);
    // The key reached the model (as Claude Code's x-api-key), so it was really used ...
    expect(model.journal.entries.length).toBeGreaterThan(0);
    // ... but not the stdio server's environment.
    const seen = readFileSync(envLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(seen.length).toBeGreaterThan(0);
    // Absent (core's relay passes the server only the allow-listed environment and its
    // spec's variables) or blanked (the adapter's own guard): either way, no value.
    for (const entry of seen as Record<string, string | null>[]) {
      for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "SCRIPTED_API_KEY"]) {
        expect([name, entry[name] ?? ""]).toEqual([name, ""]);
      }
    }
  } finally {
    try {
      await kit.close();
    } finally {
      await shippingHttp.stop();
      delete process.env.M3_PLANTED_CLAUDE_KEY;
    }
  }
});
