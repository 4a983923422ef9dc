/**
 * Prompts in the mock server: defined in a few lines next to tools, listed and rendered by
 * the MCP SDK's own server, reached by the direct client over real stdio and HTTP.
 */
import { InvalidArgument, MCPTestKit, ProtocolError } from "@jest-m3/core";
import { mockServer, type MockPrompt } from "@jest-m3/core/testing";
import { closeAndExpectNoProcessLeft } from "./support/processes";

const prompts: MockPrompt[] = [
  {
    name: "greet",
    description: "Greets someone",
    arguments: [{ name: "who", required: true }, { name: "tone" }],
    handler: ({ who, tone }) => `Say hello to ${who}${tone ? `, ${tone}` : ""}.`,
  },
  {
    name: "review",
    handler: async () => ({
      messages: [
        { role: "user", content: { type: "text", text: "Review this diff." } },
        { role: "assistant", content: { type: "text", text: "Which diff?" } },
      ],
    }),
  },
  {
    name: "broken",
    handler: () => {
      throw new Error("the template store is down");
    },
  },
];

describe.each(["stdio", "http"] as const)("mockServer prompts over %s", (transport) => {
  test("listed with their arguments, rendered from text or a full result, gets recorded", async () => {
    await using mock = mockServer({
      name: "writer",
      tools: [{ name: "noop", handler: () => "ok" }],
      prompts,
    });
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(transport === "stdio" ? await mock.stdio() : await mock.http());
    expect((await client.initialize()).capabilities).toEqual(
      expect.objectContaining({ prompts: {}, tools: {} }),
    );
    expect(await client.listPrompts()).toEqual([
      {
        name: "greet",
        description: "Greets someone",
        arguments: [{ name: "who", required: true }, { name: "tone" }],
      },
      { name: "review" },
      { name: "broken" },
    ]);
    expect(await client.getPrompt("greet", { who: "Ada", tone: "warmly" })).toEqual({
      description: "Greets someone",
      messages: [{ role: "user", content: { type: "text", text: "Say hello to Ada, warmly." } }],
    });
    expect((await client.getPrompt("review")).messages).toHaveLength(2);
    await expect(client.getPrompt("greet")).rejects.toThrow(
      expect.objectContaining({
        constructor: ProtocolError,
        message: expect.stringContaining("mock server: prompt greet needs argument who"),
      }),
    );
    await expect(client.getPrompt("missing")).rejects.toThrow(
      /no prompt named missing \(prompts: greet, review, broken\)/,
    );
    await expect(client.getPrompt("broken")).rejects.toThrow(/the template store is down/);
    expect(mock.prompts).toEqual([
      { prompt: "greet", arguments: { who: "Ada", tone: "warmly" }, transport },
      { prompt: "review", arguments: {}, transport },
      {
        prompt: "greet",
        arguments: {},
        transport,
        error: "mock server: prompt greet needs argument who",
      },
      expect.objectContaining({ prompt: "missing", error: expect.any(String) }),
      expect.objectContaining({ prompt: "broken", error: "the template store is down" }),
    ]);
    const sent = client.trace.messages.filter(
      (entry) => (entry.message as { method?: string } | undefined)?.method === "prompts/get",
    );
    expect(sent).toHaveLength(5);
    await closeAndExpectNoProcessLeft(kit);
  });
});

test("mockServer: malformed prompts are an InvalidArgument naming the field", () => {
  const cases: [unknown, RegExp][] = [
    ["greet", /prompts must be an array/],
    [[{ handler: () => "" }], /prompts\[0\]\.name must be a non-empty string/],
    [[{ name: "a" }], /prompts\[0\] \("a"\): handler must be a function/],
    [
      [
        { name: "a", handler: () => "" },
        { name: "a", handler: () => "" },
      ],
      /prompts\[1\]: a prompt named "a" is already defined/,
    ],
    [[{ name: "a", handler: () => "", arguments: [{}] }], /arguments\[0\]\.name must be/],
    [[{ name: "a", handler: () => "", arguments: "who" }], /arguments must be an array/],
  ];
  for (const [value, message] of cases) {
    expect(() => mockServer({ name: "m", prompts: value as never })).toThrow(InvalidArgument);
    expect(() => mockServer({ name: "m", prompts: value as never })).toThrow(message);
  }
});
