/**
 * Planted secrets on Pi: the provider's key (a credentialEnv value), an HTTP server's
 * authorization header and a secret in a stdio server's environment. A real Pi session uses
 * all three; then every file in the kit's temporary folders (Pi's HOME, agent dir with its
 * models.json and settings.json, the bridge's status file, the workspace, the wire
 * capture's folder), the session's result, trace and events are searched while the session
 * is still open: the values never appear, and models.json names the key's variable. The
 * stdio server sees neither Pi's key nor the bridge's configuration.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import piHarness from "@jest-m3/harness-pi";
import { startScriptedModel } from "@jest-m3/scripted-model";
import { fixturePath } from "@jest-m3/test-support";
import { startHttpShipping } from "./support/pi";

jest.setTimeout(90_000);

const KEY = "sk-m3-planted-pi-key-7c41d9";
const HEADER = "m3-planted-pi-header-2f8e55";
const SERVER_SECRET = "m3-planted-pi-server-secret-91ab03";

function files(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) found.push(...files(path));
    else if (stat.isFile()) found.push(path);
  }
  return found;
}

test("a key, a header and a server secret reach no file, trace or event; the stdio server gets no key", async () => {
  process.env.M3_PLANTED_PI_KEY = KEY;
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
  const kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [piHarness] });
  try {
    const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
    const [agent] = kit.agents([
      {
        harness: "pi",
        models: ["scripted-model"],
        provider: { ...model.providerFor("responses"), envKey: "SCRIPTED_API_KEY" },
        credentialEnv: { SCRIPTED_API_KEY: "M3_PLANTED_PI_KEY" },
        // Cold: Pi's own home is in the kit's folders, searched below.
        options: { warm: false },
      },
    ]);
    const session = agent!.session({
      servers: [
        {
          name: "shipping",
          url: shippingHttp.url,
          headers: { authorization: `Bearer ${HEADER}` },
        },
        {
          name: "local",
          command: process.execPath,
          args: [
            fixturePath("env-server.mjs"),
            "SCRIPTED_API_KEY",
            "M3_PI_NO_KEY",
            "M3_PI_BRIDGE",
            "OPENAI_API_KEY",
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
      expect(turn.toolCalls.map((call) => [call.server, call.status, call.evidence])).toEqual([
        ["shipping", "success", "both"],
        ["local", "success", "both"],
      ]);
      // While the session is open: every file of the kit's temporary folders.
      const dirs = (kit as unknown as { tempDirs: string[] }).tempDirs;
      const all = dirs.flatMap(files);
      const models = all.filter((path) => path.endsWith(join("agent", "models.json")));
      expect(models).toHaveLength(1);
      // The key's variable is named, its value is not.
      expect(readFileSync(models[0]!, "utf8")).toContain('"apiKey": "SCRIPTED_API_KEY"');
      expect(
        all.filter((path) => needles.some((needle) => readFileSync(path).includes(needle))),
      ).toEqual([]);
    }
    const everything = JSON.stringify([session.result, session.result.trace]);
    for (const needle of needles) expect(everything).not.toContain(needle);
    // The key reached the model (as Pi's bearer token), so it was really used ...
    const first = model.journal.entries[0];
    expect(first?.headers.authorization).toBeDefined();
    expect(first?.headers.authorization).not.toContain(KEY);
    // ... but not the stdio server's environment.
    const seen = readFileSync(envLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, string | null>);
    expect(seen.length).toBeGreaterThan(0);
    for (const entry of seen) {
      expect(entry).toEqual({
        SCRIPTED_API_KEY: null,
        M3_PI_NO_KEY: null,
        M3_PI_BRIDGE: null,
        OPENAI_API_KEY: null,
      });
    }
  } finally {
    try {
      await kit.close();
    } finally {
      await shippingHttp.stop();
      delete process.env.M3_PLANTED_PI_KEY;
    }
  }
});
