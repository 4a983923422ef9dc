import serializer from "../src/worker/trace-serializer";

const call = (args: Record<string, unknown>) => ({
  id: "call-7",
  turnId: "exec-1/turn-1",
  server: "shipping",
  connection: "relay-3",
  tool: "lookup",
  arguments: args,
  result: { content: [], structuredContent: { id: args.id, at: "noon" } },
  error: null,
  status: "success",
  evidence: "wire",
  jsonrpcId: 4,
  startedAt: 1,
  endedAt: 2,
  latencyMs: 1,
});

const print = (value: unknown): string =>
  serializer.serialize(value, {}, "", 0, [], (inner) => JSON.stringify(inner));

test("volatile fields of a record go; the same names inside arguments and results stay", () => {
  expect(serializer.test(call({ id: 42 }))).toBe(true);
  const printed = print(call({ id: 42 }));
  expect(printed).not.toContain("call-7");
  expect(printed).not.toContain("relay-3");
  expect(printed).not.toContain("latencyMs");
  expect(printed).toContain('"arguments":{"id":42}');
  expect(printed).toContain('"structuredContent":{"id":42,"at":"noon"}');
  expect(print(call({ id: 42 }))).not.toBe(print(call({ id: 43 })));
});

test("a trace keeps its payloads and drops each record's volatile fields", () => {
  const trace = {
    messages: [
      {
        seq: 0,
        at: 5,
        server: "s",
        connection: "c",
        direction: "to_server",
        kind: "request",
        turnId: null,
        message: {
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "lookup", arguments: { id: 42 } },
        },
      },
    ],
    toolCalls: [call({ id: 42 })],
    events: [],
    gaps: [],
  };
  const printed = print(trace);
  expect(printed).toContain('"params":{"name":"lookup","arguments":{"id":42}}');
  expect(printed).not.toContain('"id":9');
});
