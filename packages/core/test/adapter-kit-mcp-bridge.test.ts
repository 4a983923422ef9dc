/**
 * The adapter kit's MCP bridge on real MCP servers, without an agent: the bridge's side
 * connects to the servers of a configuration, offers only the allowed tools under names a
 * provider accepts (hashed where two collide once sanitized), a call reaches exactly its
 * server (the server's own call log), and the status file says which servers connected;
 * the adapter's side reads it (also while waiting for it) and names a server that failed,
 * with its stderr; closing the bridge stops its servers.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StdioServer } from "@jest-m3/core";
import {
  bridgeConfig,
  bridgeFailures,
  connectBridge,
  hashedToolName,
  offeredTools,
  readBridgeStatus,
  takeBridgeConfig,
} from "@jest-m3/core/adapter-kit";
import {
  childrenRunning,
  faultServer,
  namedCallLog,
  namedToolsServer,
  REPO_ROOT,
  waitFor,
} from "@jest-m3/test-support";

jest.setTimeout(60_000);

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "m3-bridge-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A server as a launch gives it (captured servers are resolved stdio specs). */
function captured(server: StdioServer) {
  return {
    kind: "stdio" as const,
    name: server.name,
    command: server.command,
    args: [...(server.args ?? [])],
    env: { ...server.env },
    cwd: server.cwd ?? REPO_ROOT,
  };
}

test("the bridge offers only allowed tools, calls reach their own server, and the status names a failed server", async () => {
  const logA = join(root, "a.jsonl");
  const logB = join(root, "b.jsonl");
  const servers = [
    captured(namedToolsServer("ship.a", ["quote", "secret"], logA)),
    captured(namedToolsServer("ship_a", ["quote"], logB)),
    captured(faultServer("--exit-at-start", "3")),
  ];
  const toolPolicy = new Map<string, ReadonlySet<string> | undefined>([
    ["ship.a", new Set(["quote"])],
    ["ship_a", undefined],
    ["faulty", undefined],
  ]);
  const statusFile = join(root, "status.json");
  const config = bridgeConfig({ servers, toolPolicy }, statusFile, {
    toolTimeoutMs: 10_000,
    startupTimeoutMs: 10_000,
  });
  expect(config.allow).toEqual({ "ship.a": ["quote"], ship_a: null, faulty: null });

  const bridge = await connectBridge(config);
  try {
    // ship.a's secret is not allowed; the two quotes are both mcp__ship_a__quote once
    // sanitized, so each gets its hashed name.
    const offered = bridge.tools.map((tool) => [tool.name, tool.server, tool.tool]);
    expect(offered.sort()).toEqual(
      [
        [hashedToolName("ship.a", "quote"), "ship.a", "quote"],
        [hashedToolName("ship_a", "quote"), "ship_a", "quote"],
      ].sort(),
    );
    for (const tool of bridge.tools) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const quoteB = bridge.tools.find((tool) => tool.server === "ship_a");
    expect(quoteB?.inputSchema).toEqual({
      type: "object",
      properties: { note: { type: "string" } },
    });
    const result = await quoteB!.call({ note: "heron" });
    expect(result.content).toEqual([{ type: "text", text: "ship_a:quote ran" }]);
    expect(namedCallLog(logB)).toEqual([
      { server: "ship_a", tool: "quote", arguments: { note: "heron" } },
    ]);
    expect(namedCallLog(logA)).toEqual([]);

    // The status appears once reported; a reader that waits for it gets it.
    expect(await readBridgeStatus(statusFile)).toBeUndefined();
    const waiting = readBridgeStatus(statusFile, 10_000);
    bridge.report();
    const status = await waiting;
    expect(offeredTools(status)).toEqual(
      new Map([
        [hashedToolName("ship.a", "quote"), { server: "ship.a", tool: "quote" }],
        [hashedToolName("ship_a", "quote"), { server: "ship_a", tool: "quote" }],
      ]),
    );
    expect(status?.servers["ship.a"]).toMatchObject({ tools: ["quote", "secret"] });
    const failure = bridgeFailures(servers, status);
    expect(failure).toContain('MCP server "faulty" failed to start: ');
    expect(failure).toContain(
      "--- faulty stderr ---\nfault-server: starting\nfatal: cannot open database",
    );
    expect(bridgeFailures(servers.slice(0, 2), status)).toBeUndefined();
    expect(bridgeFailures(servers, undefined)).toContain("did not report its servers");
    expect(childrenRunning(process.pid, "named-tools-server.mjs")).toHaveLength(2);
  } finally {
    await bridge.close();
  }
  const gone = () => childrenRunning(process.pid, "named-tools-server.mjs").length === 0;
  await waitFor(gone, "the bridge's servers to stop with it", 5000);
});

test("the bridge's configuration is read from its variable once, and the variable removed", () => {
  const config = bridgeConfig({ servers: [], toolPolicy: new Map() }, join(root, "s.json"), {
    toolTimeoutMs: 1000,
    startupTimeoutMs: 1000,
  });
  process.env.M3_TEST_BRIDGE = JSON.stringify(config);
  expect(takeBridgeConfig("M3_TEST_BRIDGE")).toEqual(config);
  expect(process.env.M3_TEST_BRIDGE).toBeUndefined();
  expect(takeBridgeConfig("M3_TEST_BRIDGE")).toBeUndefined();
});
