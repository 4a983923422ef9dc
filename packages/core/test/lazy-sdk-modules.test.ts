// The MCP SDK's client and ajv load on first use, not with the kit: a test file that makes no
// direct client (an agent test) never pays for them. Ground truth: Node's own module cache
// in a fresh process, before and after a direct client's first call.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const CORE = join(__dirname, "..", "dist", "index.js");
const SERVER = join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs");

test("loading the kit loads neither the SDK's client nor ajv; a direct client's first call does", () => {
  const script = `
    const loaded = () => Object.keys(require.cache).filter((file) =>
      /[\\\\/]ajv[\\\\/]|sdk[\\\\/]dist[\\\\/]cjs[\\\\/]client[\\\\/]/.test(file)).length;
    const { MCPTestKit } = require(${JSON.stringify(CORE)});
    const before = loaded();
    (async () => {
      const kit = new MCPTestKit({ env: {} });
      const client = kit.direct({ name: "shipping", command: process.execPath, args: [${JSON.stringify(SERVER)}] });
      const result = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
      console.log(JSON.stringify({ before, after: loaded(), isError: result.isError === true }));
      await kit.close();
    })().catch((error) => { console.error(error); process.exitCode = 1; });
  `;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
  expect(run.stderr).toBe("");
  const seen = JSON.parse(run.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
  expect(seen.before).toBe(0);
  expect(seen.after).toBeGreaterThan(50);
  expect(seen.isError).toBe(false);
});
