// m3.config.json `webServers`: a real Jest run of a user's project whose configuration
// starts the example's shipping server over Streamable HTTP (the real SDK) for the run; its
// tests call it through webServerUrl(), the server's own call log is the truth, and the
// server is gone when Jest has exited. Bad entries stop the run before any test.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "@jest-m3/test-support";
import { makeUserProject, removeTempDir, runJest, SHIPPING_SERVER } from "./support/user-project";

let project: string | undefined;
afterEach(() => removeTempDir(project));

const TEST = `
import { writeFileSync } from "node:fs";
import { MCPTestKit, expect, webServerUrl } from "jest-m3";

test("the run's web server answers at the URL global setup handed over", async () => {
  const url = webServerUrl("shipping");
  writeFileSync("url.txt", url);
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct({ name: "shipping", url });
  const quote = await client.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(JSON.stringify(quote.content)).toContain("Quote calculated");
  await client.close();
});

test("an unknown name says which servers the run has", () => {
  expect(() => webServerUrl("catalogue")).toThrow('this run\\'s are "shipping"');
});
`;

test("a configured web server starts before the tests, serves them, and stops with the run", async () => {
  const port = await freePort();
  project = makeUserProject({ "web.test.ts": TEST });
  const log = join(project, "calls.jsonl");
  const url = `http://127.0.0.1:${port}/mcp`;
  const config = {
    webServers: [
      {
        name: "shipping",
        command: process.execPath,
        args: [SHIPPING_SERVER, "--http", "--port", String(port)],
        url,
        env: { SHIPPING_CALL_LOG: log },
      },
    ],
  };
  writeFileSync(join(project, "m3.config.json"), JSON.stringify(config));
  const run = runJest(project, { timeoutMs: 120_000 });
  expect(run.output).toContain("Tests:       2 passed, 2 total");
  expect(run.status).toBe(0);
  expect(readFileSync(join(project, "url.txt"), "utf8")).toBe(url);
  // The server's own record of the call the test made.
  const calls = readFileSync(log, "utf8").trim().split("\n");
  expect(calls).toHaveLength(1);
  expect(calls[0]).toContain("shipping_quote");
  // Stopped with the run: nothing answers its port any more.
  await expect(fetch(url, { method: "POST" })).rejects.toThrow();
});

test("a web server that cannot start, or a bad entry, stops the run before any test", async () => {
  const port = await freePort();
  project = makeUserProject({
    "web.test.ts": 'test("never runs", () => require("node:fs").writeFileSync("ran", ""));\n',
  });
  const write = (config: unknown): void =>
    writeFileSync(join(project!, "m3.config.json"), JSON.stringify(config));

  write({
    webServers: [
      {
        name: "shipping",
        command: process.execPath,
        args: ["-e", 'process.stderr.write("no database configured\\n"); process.exit(4)'],
        url: `http://127.0.0.1:${port}/mcp`,
      },
    ],
  });
  let run = runJest(project, { timeoutMs: 120_000 });
  expect(run.status).not.toBe(0);
  expect(run.output).toContain("Web server shipping: the command exited (code 4)");
  expect(run.output).toContain("no database configured");
  expect(existsSync(join(project, "ran"))).toBe(false);

  write({ webServers: [{ name: "shipping", command: "node", url: "ftp://127.0.0.1/x" }] });
  run = runJest(project, { timeoutMs: 120_000 });
  expect(run.status).not.toBe(0);
  expect(run.output).toMatch(/"webServers\[0\]\.url" .*http/);

  write({
    webServers: [
      { name: "a", command: "node", url: "http://127.0.0.1:1/mcp" },
      { name: "a", command: "node", url: "http://127.0.0.1:2/mcp" },
    ],
  });
  run = runJest(project, { timeoutMs: 120_000 });
  expect(run.output).toContain('"webServers[1].name" repeats "a"');
  expect(existsSync(join(project, "ran"))).toBe(false);
});
