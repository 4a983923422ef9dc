// docs/direct.md, "Starting an HTTP server for the tests": the per-file example, verbatim.
import { join } from "node:path";
import { MCPTestKit, expect, startWebServer, type WebServer } from "jest-m3";

const SERVER = join(__dirname, "..", "..", "..", "examples", "shipping", "shipping-server.mjs");

let web: WebServer;
beforeAll(async () => {
  web = await startWebServer({
    command: process.execPath,
    args: [SERVER, "--http", "--port", "48931"],
    url: "http://127.0.0.1:48931/mcp",
  });
});
afterAll(() => web.close());

test("the shipping server quotes over HTTP", async () => {
  await using kit = new MCPTestKit();
  const client = kit.direct({ name: "shipping", url: web.url });
  const quote = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(quote.isError).toBeFalsy();
});
