// The tool allow-list: a tool the test does not allow never reaches the server. The
// shipping server appends every call it receives to SHIPPING_CALL_LOG, the ground truth.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, expect, type StdioServer } from "jest-m3";

async function shippingWithLog(
  kit: MCPTestKit,
): Promise<{ server: StdioServer; received: () => string[] }> {
  const log = join(await kit.tempDir(), "calls.jsonl");
  const server: StdioServer = {
    name: "shipping",
    command: process.execPath,
    args: [join(__dirname, "shipping-server.mjs")],
    cwd: __dirname,
    env: { SHIPPING_CALL_LOG: log },
  };
  const received = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
  return { server, received };
}

test("a tool outside the allow-list is not offered to the agent and never reaches the server", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const { server, received } = await shippingWithLog(kit);
  const [agent] = kit.agents([{ harness: "codex", models: [process.env.M3_DOCS_CODEX_MODEL!] }]);

  const result = await agent.run("Call shipping_quote once for weight_kg 2 in zone local.", {
    server,
    tools: [],
    timeout: 120_000,
  });

  expect(result).not.toHaveToolCall("shipping_quote", { evidence: "any" });
  expect(received()).toEqual([]);
});

test("a call the agent makes anyway is denied on the wire: policy_denied, and the server never sees it", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const { server, received } = await shippingWithLog(kit);
  // exposeDisallowedTools: Codex offers every tool, so only the wire capture stands in the way.
  const [agent] = kit.agents([
    {
      harness: "codex",
      models: [process.env.M3_DOCS_CODEX_MODEL!],
      options: { exposeDisallowedTools: true },
    },
  ]);

  const result = await agent.run("Call shipping_quote once for weight_kg 2 in zone local.", {
    server,
    tools: [],
    timeout: 120_000,
  });

  expect(result).toHaveToolCall("shipping_quote", {
    server: "shipping",
    status: "policy_denied",
    count: 1,
  });
  expect(result).not.toHaveToolCall("shipping_quote", { status: "success" });
  expect(received()).toEqual([]);
});
