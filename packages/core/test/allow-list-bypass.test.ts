// The allow-list holds against payloads a server might read differently from the capture:
// nothing the relay or the proxy cannot vouch for reaches the server, and every refused
// call is in the trace. Ground truth: the shipping server's own call log stays empty.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { MCPTestKit, type ToolCall } from "@jest-m3/core";
import { INITIALIZE } from "@jest-m3/test-support";
import { shippingScript } from "./support/servers";

const call = (id: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    ...(id === undefined ? {} : { id }),
    method: "tools/call",
    params: { name: "shipping_quote", arguments: { weight_kg: 1, zone: "local" } },
    ...extra,
  });
const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "m3-bypass-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const logged = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

test("stdio relay: lines it cannot vouch for never reach the server, and each refused call is recorded", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const log = join(dir, "calls.jsonl");
  const { capture, servers } = await kit.capture({
    servers: [
      {
        name: "shipping",
        command: process.execPath,
        args: [shippingScript],
        env: { SHIPPING_CALL_LOG: log },
      },
    ],
    tools: [],
  });
  const relay = servers[0]!;
  if (relay.kind !== "stdio") throw new Error("stdio expected");
  const child = spawn(relay.command, [...relay.args], {
    env: { ...process.env, ...relay.env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const replies = new Map<unknown, Record<string, unknown>>();
  const waiting = new Map<unknown, () => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    replies.set(message.id, message);
    waiting.get(message.id)?.();
  });
  const answered = (id: unknown) =>
    new Promise<void>((resolve) => (replies.has(id) ? resolve() : waiting.set(id, resolve)));
  const write = (data: string | Buffer) => child.stdin!.write(data);

  write(INITIALIZE + "\n");
  await answered(1);
  write(initialized + "\n");
  // A bare CR: Node's readline and Python's line readers split here.
  write("x\r" + call(2) + "\n");
  // Calls the relay could not answer: no id, a null id, an object id, in a batch.
  write(call(undefined) + "\n");
  write(call(null) + "\n");
  write(call({ nested: 1 }) + "\n");
  write(`[${call(undefined)}, {"jsonrpc":"2.0","id":3,"method":"ping"}]\n`);
  // Other separators some readers split on, inside otherwise valid JSON.
  // Valid JSON all the same: CR as whitespace, a raw U+2028 inside a string.
  write(call(4).replace(',"method"', ',\r"method"') + "\n");
  write(call(5).replace('"local"', '"loc\u2028al"') + "\n");
  // Not valid UTF-8, with a call in it.
  write(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(call(6) + "\n")]));
  // A plain denied call: answered with the policy error.
  write(call(7) + "\n");
  write(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }) + "\n");
  await answered(8); // the server handled everything sent before the ping
  await answered(7);
  await answered(4);
  await answered(5);
  child.stdin!.end();
  await new Promise((resolve) => child.once("exit", resolve));
  await capture.flush();

  expect(logged(log)).toEqual([]);
  expect((replies.get(7)?.error as { code: number }).code).toBe(-32001);
  expect(replies.has(2)).toBe(false); // never reached the server: nothing answered it
  const denied = capture.trace.toolCalls.filter((one: ToolCall) => one.status === "policy_denied");
  // x\r+call, no id, null id, object id, the batch's call, CR, U+2028, invalid UTF-8, id 7.
  expect(denied).toHaveLength(9);
  expect(denied.every((one) => one.tool === "shipping_quote")).toBe(true);
  expect(capture.trace.toolCalls.filter((one) => one.status === "success")).toEqual([]);
});

test("HTTP proxy: bodies it cannot decode as the server would are refused and recorded", async () => {
  const log = join(dir, "calls.jsonl");
  const server = spawn(process.execPath, [shippingScript, "--http", "--port", "0"], {
    env: { ...process.env, SHIPPING_CALL_LOG: log },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const closed = new Promise((resolve) => server.once("close", resolve));
  try {
    const url = await new Promise<string>((resolve) => {
      let seen = "";
      server.stdout!.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening (\S+)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
    });
    await using kit = new MCPTestKit({ env: {} });
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", url }],
      tools: [],
    });
    const proxy = servers[0]!;
    if (proxy.kind !== "http") throw new Error("http expected");
    const post = (body: string | Buffer, headers: Record<string, string> = {}) =>
      fetch(proxy.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body,
      });
    const init = await post(INITIALIZE);
    const session = init.headers.get("mcp-session-id") ?? "";
    const withSession = { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
    await post(initialized, withSession);
    const refused = [
      await post("\ufeff" + call(2), withSession), // a BOM
      await post(call(3), { ...withSession, "content-type": "application/json; charset=latin1" }),
      await post(call(4), { ...withSession, "content-encoding": "gzip" }),
      await post(Buffer.concat([Buffer.from([0xff]), Buffer.from(call(5))]), withSession),
      await post(call(undefined), withSession),
      await post("x\r" + call(6), withSession),
    ];
    expect(refused.map((response) => response.status)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(await refused[0]!.json()).toMatchObject({
      error: { message: expect.stringMatching(/^Refused by the test's wire capture/) },
    });
    expect(logged(log)).toEqual([]);
    const events = capture.trace.events.filter((event) => event.kind === "policy_refused");
    expect(events.length).toBeGreaterThanOrEqual(6);
    // The calls whose bodies could be read are in the trace as policy_denied.
    expect(
      capture.trace.toolCalls.filter((one) => one.status === "policy_denied").length,
    ).toBeGreaterThanOrEqual(2);
  } finally {
    // Waited for: a child still unreaped when the file ends keeps Jest's worker alive.
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    await closed;
  }
});

test("without an allow-list, bytes still pass unchanged, and a line that is not UTF-8 is kept as malformed bytes, not invented text", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const { capture, servers } = await kit.capture({
    servers: [
      {
        name: "echo",
        command: process.execPath,
        args: ["-e", "process.stdin.pipe(process.stdout)"],
      },
    ],
  });
  const relay = servers[0]!;
  if (relay.kind !== "stdio") throw new Error("stdio expected");
  const child = spawn(relay.command, [...relay.args], {
    env: { ...process.env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const chunks: Buffer[] = [];
  child.stdout!.on("data", (chunk: Buffer) => chunks.push(chunk));
  const bad = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"x":"'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('"}}\n'),
  ]);
  child.stdin!.end(bad);
  await new Promise((resolve) => child.once("exit", resolve));
  await capture.flush();
  expect(Buffer.concat(chunks).equals(bad)).toBe(true);
  const malformed = capture.trace.messages.filter((message) => message.kind === "malformed");
  expect(malformed.map((message) => message.direction).sort()).toEqual([
    "from_server",
    "to_server",
  ]);
  expect(malformed[0]!.raw).toBe(`base64:${bad.subarray(0, bad.length - 1).toString("base64")}`);
  expect(malformed[0]!.problem).toMatch(/not valid UTF-8/);
});
