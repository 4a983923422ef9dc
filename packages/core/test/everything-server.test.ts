import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import { closeAndExpectNoProcessLeft } from "./support/processes";

/** @modelcontextprotocol/server-everything, a real third-party server, over stdio. */
const everything: StdioServer = {
  name: "everything",
  command: process.execPath,
  args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

describe("DirectClient against @modelcontextprotocol/server-everything", () => {
  const kit = new MCPTestKit({ env: {} });
  const client = kit.direct(everything);
  afterAll(async () => {
    await closeAndExpectNoProcessLeft(kit);
  });

  test("tools: echo and get-sum answer, an unknown tool is a tool error", async () => {
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content"]));
    expect(await client.callTool("echo", { message: "hello" })).toEqual({
      content: [{ type: "text", text: "Echo: hello" }],
    });
    const sum = await client.callTool("get-sum", { a: 2, b: 3 });
    expect(sum.content).toEqual([{ type: "text", text: "The sum of 2 and 3 is 5." }]);
    const unknown = await client.callTool("no-such-tool", {});
    expect(unknown.isError).toBe(true);
    expect(client.trace.toolCalls.map((call) => call.status)).toEqual([
      "success",
      "success",
      "tool_error",
    ]);
  });

  test("resources: list and read one", async () => {
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0]!;
    const read = await client.readResource(first.uri);
    expect(read.contents[0]?.uri).toBe(first.uri);
  });

  test("prompts: list and get one with arguments", async () => {
    const prompts = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(
      expect.arrayContaining(["simple-prompt", "args-prompt"]),
    );
    const prompt = await client.getPrompt("args-prompt", { city: "Lisbon" });
    expect(JSON.stringify(prompt.messages)).toContain("Lisbon");
  });
});
