import { existsSync } from "node:fs";
import { KitClosed, MCPTestKit } from "@jest-m3/core";
import { isRunning } from "./support/processes";
import { shipping } from "./support/servers";

describe("MCPTestKit lifecycle", () => {
  test("close() is idempotent, concurrent calls share one close", async () => {
    const kit = new MCPTestKit({ env: {} });
    await kit.direct(shipping).ping();
    const [first, second] = [kit.close(), kit.close()];
    expect(first).toBe(second);
    await first;
    await kit.close();
    expect(kit.closed).toBe(true);
  });

  test("await using closes the kit, its clients, its processes and its temp dirs", async () => {
    let pid: number | undefined;
    let dir = "";
    let outer: MCPTestKit | undefined;
    {
      await using kit = new MCPTestKit({ env: {} });
      outer = kit;
      const client = kit.direct(shipping);
      await client.ping();
      pid = client.pid;
      dir = await kit.tempDir();
      expect(existsSync(dir)).toBe(true);
      expect(isRunning(pid!)).toBe(true);
    }
    expect(outer.closed).toBe(true);
    expect(isRunning(pid!)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  test("use after close throws KitClosed with what to do", async () => {
    const kit = new MCPTestKit({ env: {} });
    const client = kit.direct(shipping);
    await kit.close();
    expect(() => kit.direct(shipping)).toThrow(KitClosed);
    expect(() => kit.direct(shipping)).toThrow(
      /kit.direct\(\) was called after the MCPTestKit was closed/,
    );
    await expect(kit.tempDir()).rejects.toBeInstanceOf(KitClosed);
    await expect(client.listTools()).rejects.toBeInstanceOf(KitClosed);
  });

  test("the trace of a client closed by the kit is final", async () => {
    const kit = new MCPTestKit({ env: {} });
    const client = kit.direct(shipping);
    await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
    await kit.close();
    expect(client.finalTrace.toolCalls).toHaveLength(1);
  });

  test("servers get an allow-listed environment plus their own env, never the whole parent environment", async () => {
    process.env.M3_TEST_SECRET_SHOULD_NOT_LEAK = "s3cr3t-value";
    try {
      await using kit = new MCPTestKit({ env: {} });
      const client = kit.direct({
        name: "env-echo",
        command: process.execPath,
        args: [
          "-e",
          "process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:0,result:{protocolVersion:'2025-06-18',capabilities:{},serverInfo:{name:JSON.stringify(Object.keys(process.env)),version:'1'}}})+'\\n'); process.stdin.resume()",
        ],
        env: { SHIPPING_REGION: "eu" },
      });
      const keys = JSON.parse((await client.initialize()).serverInfo!.name) as string[];
      expect(keys).toContain("SHIPPING_REGION");
      expect(keys).toContain("PATH");
      expect(keys).not.toContain("M3_TEST_SECRET_SHOULD_NOT_LEAK");
    } finally {
      delete process.env.M3_TEST_SECRET_SHOULD_NOT_LEAK;
    }
  });
});
