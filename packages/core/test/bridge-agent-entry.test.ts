/**
 * `@jest-m3/core/bridge-agent`, what an extension inside an agent's process (Pi's) loads:
 * in a fresh Node process it loads the MCP bridge and the MCP SDK's client, and none of
 * the kit (the adapter-kit barrel, the kit, the wire capture, the runtime). Ground truth: Node's
 * own module cache of that process. Its functions are the adapter kit's, by identity.
 */
import { spawnSync } from "node:child_process";
import * as adapterKit from "@jest-m3/core/adapter-kit";
import * as bridgeAgent from "@jest-m3/core/bridge-agent";

/** The files a fresh Node process loaded to require `entry`, relative to node_modules or core. */
function loaded(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  return (JSON.parse(run.stdout) as string[]).map((file) => file.replace(/\\/g, "/"));
}

test("the bridge entry loads the bridge and the SDK's client, none of the kit", () => {
  const files = loaded("@jest-m3/core/bridge-agent");
  const core = files
    .filter((file) => /\/core\/dist\//.test(file))
    .map((file) => file.replace(/.*\/core\/dist\//, ""));
  expect(core).toContain("adapter-kit/mcp-bridge-agent.js");
  expect(core).not.toContain("adapter-kit.js");
  expect(core).not.toContain("index.js");
  expect(core.filter((file) => /^(kit|wire|agents|runtime|direct)\//.test(file))).toEqual([]);
  expect(
    files.some((file) => /@modelcontextprotocol\/sdk\/dist\/cjs\/client\/index\.js$/.test(file)),
  ).toBe(true);
  // The whole kit loads many more of core's files: the narrow entry is what saves them.
  const kit = loaded("@jest-m3/core/adapter-kit").filter((file) => /\/core\/dist\//.test(file));
  expect(kit.length).toBeGreaterThan(core.length * 3);
});

test("its functions are the adapter kit's own", () => {
  expect(bridgeAgent.connectBridge).toBe(adapterKit.connectBridge);
  expect(bridgeAgent.takeBridgeConfig).toBe(adapterKit.takeBridgeConfig);
});
