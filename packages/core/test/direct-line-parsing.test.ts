import { parseStdioLine } from "../dist/direct/process-transport.js";
import { parseJsonRpcLine } from "../dist/wire/json-rpc.js";

// The direct client checks the common line (a plain result response) by hand instead of
// through the SDK's schema union (issue 36). It must accept and refuse exactly what the
// schema does, so a malformed line is still recorded as malformed and nothing else is.
const lines = [
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"9 USD"}]}}',
  '{"jsonrpc":"2.0","id":"a-1","result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":3}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":"not an object"}}',
  '{"jsonrpc":"2.0","id":1,"result":{},"extra":true}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","id":true,"result":{}}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":null}',
  '{"jsonrpc":"2.0","id":1,"result":"text"}',
  '{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
  '{"jsonrpc":"2.0","id":7,"method":"roots/list"}',
  '[{"jsonrpc":"2.0","id":1,"result":{}}]',
  '{"json":"but not json-rpc"}',
  "this is not json",
  "1e400",
  "null",
];

describe("direct client: stdio line parsing", () => {
  test.each(lines)("%s: the same verdict as the SDK's schema", (line) => {
    const fast = parseStdioLine(line);
    const schema = parseJsonRpcLine(line);
    expect(fast).toEqual(schema);
  });

  test("a plain result response comes back as sent, a bad one is refused with the reason", () => {
    const line = '{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"amount":9}}}';
    expect(parseStdioLine(line)).toEqual({ ok: true, message: JSON.parse(line) as unknown });
    expect(parseStdioLine('{"jsonrpc":"2.0","id":4,"result":{},"x":1}')).toEqual({
      ok: false,
      problem: "JSON, but not a JSON-RPC 2.0 message",
    });
  });
});
