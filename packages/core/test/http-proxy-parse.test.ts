// The HTTP capture proxy reads each request body as JSON once: the recording, the
// allow-list and the ids of the requests it carries all take that one value. Measured by
// counting JSON.parse calls on the body's exact text while a real request crosses a real
// proxy in front of the real shipping server (a separate process, so its own parsing is
// not counted).
import { MCPTestKit } from "@jest-m3/core";
import { startHttpShipping } from "./support/servers";

const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 41,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "parse-once", version: "1" },
  },
});

test.each([
  ["with an allow-list", ["shipping:shipping_quote"]],
  ["without one", undefined],
])("a request body is parsed once (%s), and still recorded", async (_label, tools) => {
  const http = await startHttpShipping();
  const parse = jest.spyOn(JSON, "parse");
  try {
    await using kit = new MCPTestKit({ env: {} });
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", url: http.url }],
      ...(tools ? { tools } : {}),
    });
    const proxy = servers[0]!;
    if (proxy.kind !== "http") throw new Error("http expected");
    const response = await fetch(proxy.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
    expect(response.status).toBe(200);
    await response.text();
    const parsesOfBody = parse.mock.calls.filter(([text]) => text === body).length;
    expect(parsesOfBody).toBe(1);
    await capture.close();
    const recorded = capture.trace.messages.filter(
      (entry) =>
        entry.direction === "to_server" &&
        (entry.message as { method?: string } | undefined)?.method === "initialize",
    );
    expect(recorded).toHaveLength(1);
  } finally {
    parse.mockRestore();
    await http.stop();
  }
});
