// startWebServer: a real Streamable HTTP MCP server (the SDK's) started as a command, its
// URL polled until it answers, a real direct client calling it (the server's own log as
// truth), and every failure stopping what it started.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, isRunning } from "@jest-m3/test-support";
import { InvalidArgument, MCPTestKit, startWebServer, WebServerFailed } from "@jest-m3/core";

const SERVER = join(__dirname, "fixtures", "http-echo-server.mjs");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-web-server-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const logOf = (file: string): Array<Record<string, unknown>> =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];

test("waits until the server listens, hands its URL to a client, and stops it with its group", async () => {
  const port = await freePort();
  const log = join(dir, "calls.jsonl");
  const started = Date.now();
  const web = await startWebServer({
    command: process.execPath,
    args: [SERVER, "--port", String(port), "--delay", "700", "--log", log],
    url: `http://127.0.0.1:${port}/mcp`,
  });
  const ready = Date.now();
  // Resolved only after the server's own record says it listens, not before.
  const listening = logOf(log).find((line) => line.listening === port);
  expect(listening).toBeDefined();
  expect(ready).toBeGreaterThanOrEqual(listening!.at as number);
  expect(ready - started).toBeGreaterThanOrEqual(700);
  expect(web.url).toBe(`http://127.0.0.1:${port}/mcp`);
  expect(isRunning(web.pid!)).toBe(true);

  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct({ name: "echo", url: web.url });
  const result = await client.callTool("echo", { text: "hello" });
  expect(result.content).toEqual([{ type: "text", text: "hello" }]);
  expect(logOf(log).filter((line) => line.call === "echo")).toEqual([
    expect.objectContaining({ text: "hello" }),
  ]);
  await client.close();

  await web.close();
  expect(isRunning(web.pid!)).toBe(false);
  await web.close(); // idempotent
});

test("a command that exits before its URL answers fails with its exit and stderr, leaving nothing", async () => {
  const port = await freePort();
  const error = await startWebServer({
    name: "catalogue",
    command: process.execPath,
    args: [SERVER, "--port", String(port), "--exit", "3"],
    url: `http://127.0.0.1:${port}/mcp`,
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(WebServerFailed);
  expect((error as WebServerFailed).code).toBe("M3_WEB_SERVER");
  expect((error as Error).message).toContain("Web server catalogue: the command exited (code 3)");
  expect((error as Error).message).toContain("cannot bind, address already in use");
});

test("a URL that never answers times out, and the server is stopped", async () => {
  const [port, other] = [await freePort(), await freePort()];
  const log = join(dir, "calls.jsonl");
  const error = await startWebServer({
    command: process.execPath,
    // Listens on one port while the URL names another.
    args: [SERVER, "--port", String(port), "--log", log],
    url: `http://127.0.0.1:${other}/mcp`,
    timeoutMs: 5_000,
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(WebServerFailed);
  expect((error as Error).message).toContain("did not answer within 5000 ms");
  // The server had started (its own log says so) and is gone now: nothing answers its port.
  expect(logOf(log).some((line) => line.listening === port)).toBe(true);
  await expect(fetch(`http://127.0.0.1:${port}/mcp`)).rejects.toThrow();
});

test("something already answering is refused unless reuseExisting, which starts nothing", async () => {
  const busy: Server = createServer((_request, response) => response.writeHead(405).end());
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(busy.address() as { port: number }).port}/mcp`;
  const marker = join(dir, "started");
  const launch = {
    command: process.execPath,
    args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`],
    url,
  };
  try {
    await expect(startWebServer(launch)).rejects.toThrow(/already answers at .*reuseExisting/);
    const reused = await startWebServer({ ...launch, reuseExisting: true });
    expect(reused.pid).toBeUndefined();
    expect(reused.url).toBe(url);
    await reused.close();
    expect(existsSync(marker)).toBe(false);
  } finally {
    await new Promise((resolve) => busy.close(resolve));
  }
});

test("bad options are refused before anything starts, naming the field", async () => {
  const marker = join(dir, "started");
  const command = process.execPath;
  const args = ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`];
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ command, args, url: "ftp://127.0.0.1/mcp" }, /"url" .*http/],
    [
      { command, args, url: "http://127.0.0.1:1/mcp", comand: "x" },
      /"comand" is not a web server option.*Did you mean "command"/,
    ],
    [{ args, url: "http://127.0.0.1:1/mcp" }, /"command"/],
    [
      { command, args, url: "http://127.0.0.1:1/mcp", timeoutMs: -5 },
      /"timeoutMs" must be a positive number/,
    ],
    [{ command, args: ["a", 2], url: "http://127.0.0.1:1/mcp" }, /"args\[1\]"/],
  ];
  for (const [options, message] of cases) {
    const error = await startWebServer(options as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidArgument);
    expect((error as Error).message).toMatch(message);
  }
  expect(existsSync(marker)).toBe(false);
});
