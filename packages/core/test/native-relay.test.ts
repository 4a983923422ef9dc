// The native relay against the Node relay, byte for byte: the same input through each (the
// allow-list active), then what the server received, what the client got back and what
// the kit recorded must agree. The inputs are the ones a second reader could read
// differently: duplicate and escaped keys, odd ids, separators, invalid UTF-8, batches.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import { stdioRelayLaunch, STDIO_RELAY_VARIABLE } from "@jest-m3/core/runner";

const native = stdioRelayLaunch();

// This repository's install builds the native relay (core's install script, with the
// machine's C compiler). When it did not, these tests fail and say why: never a silent skip.
test("the native relay was built by the install step", () => {
  expect({ kind: native.kind, reason: native.reason }).toEqual({
    kind: "native",
    reason: expect.any(String),
  });
});

const call = (id: string, name = "allowed_tool", extra = "") =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{"a":1}${extra}}}`;

const INPUT: Buffer[] = [
  call("1"),
  call("2", "denied_tool"),
  call('"s\\u00e9\\ud83d\\ude00"', "denied_tool"),
  call('"lone\\ud800"', "denied_tool"),
  call("1.50", "denied_tool"),
  call("1e2", "denied_tool"),
  call("1e400", "denied_tool"),
  call("-0", "denied_tool"),
  call("12345678901234567890", "denied_tool"),
  call("0.0000001", "denied_tool"),
  // The last key wins in JSON.parse: this one calls the denied tool.
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"allowed_tool","name":"denied_tool"}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"n\\u0061me":"denied_tool","arguments":null}}',
  '{"jsonrpc":"2.0","id":5,"method":"tools\\/call","params":{"name":"denied_tool"}}',
  '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":["denied_tool"]}',
  '{"jsonrpc":"2.0","id":7,"method":"tools/call"}',
  `[${call("8")},${call("9", "denied_tool")},{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`,
  `[${call("11")},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"allowed_tool"}}]`,
  `[]`,
  `[1,"x",null]`,
  ` \t${call("12")}\t `,
  `x\r${call("13", "denied_tool")}`,
  call("14").replace('"a":1', '"a":"x\u2028y"'),
  call("15").replace('"a":1', '"a":"x\u0085y"'),
  call("16") + "\r", // CRLF: the CR is the line's end, not its content
  `{"jsonrpc":"2.0","id":17,"method":"ping"} trailing`,
  `{"jsonrpc":"2.0","id":18,"method":"ping",}`,
  `not json at all`,
  "",
  "[".repeat(3000) + "]".repeat(3000),
  `{"jsonrpc":"2.0","id":19,"method":"ping","params":{"x":"\\q"}}`,
  `{"jsonrpc":"2.0","id":20,"method":"ping","params":{"x":01}}`,
  `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"denied_tool","arguments":{"k":[1,2,{"z":true}],"t":"\\"q\\""}}}`,
].map((line) => Buffer.from(line + "\n"));
INPUT.push(
  // Not UTF-8, with calls behind a Latin-1 NEL (0x85) and a CR.
  Buffer.concat([
    Buffer.from([0xff]),
    Buffer.from("junk"),
    Buffer.from([0x85]),
    Buffer.from(call("22", "denied_tool")),
    Buffer.from("\r"),
    Buffer.from(call("23", "other", ',"x":"\u00e9"')),
    Buffer.from("\n"),
  ]),
  Buffer.from([0xc3, 0x28, 0x0a]),
  Buffer.from(call("24")), // the last line, without a newline
);

// The server records every byte it receives, and writes lines a client would choke on.
const SERVER = [
  "const fs = require('fs');",
  'process.stdout.write(Buffer.concat([Buffer.from(\'{"jsonrpc":"2.0","method":"hello"}\\r\\n\'), Buffer.from([0xc3, 0x28, 0x0a]), Buffer.from(\'partial\')]));',
  "process.stdin.on('data', (c) => fs.appendFileSync(process.argv[1], c));",
  "process.stdin.on('end', () => { process.stderr.write('bye \\u00e9\\n'); process.exit(3); });",
].join("\n");

interface Run {
  received: Buffer;
  stdout: Buffer;
  stderr: string;
  code: number | null;
  trace: unknown;
}

async function through(relay: "native" | "node", dir: string): Promise<Run> {
  const before = process.env[STDIO_RELAY_VARIABLE];
  process.env[STDIO_RELAY_VARIABLE] = relay;
  try {
    await using kit = new MCPTestKit({ env: {} });
    const log = join(dir, `${relay}.bin`);
    const { capture, servers } = await kit.capture({
      servers: [{ name: "probe", command: process.execPath, args: ["-e", SERVER, log] }],
      tools: ["probe:allowed_tool"],
    });
    const wrapped = servers[0]!;
    if (wrapped.kind !== "stdio") throw new Error("stdio expected");
    expect(wrapped.command).toBe(stdioRelayLaunch(relay).command);
    const child = spawn(wrapped.command, [...wrapped.args], {
      env: { ...process.env, ...wrapped.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    for (const line of INPUT) child.stdin.write(line);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    await capture.flush();
    const trace = capture.trace;
    return {
      received: existsSync(log) ? readFileSync(log) : Buffer.alloc(0),
      stdout: Buffer.concat(out),
      stderr,
      code,
      trace: {
        messages: trace.messages.map((m) => ({ ...m, at: undefined, connection: undefined })),
        toolCalls: trace.toolCalls.map((c) => ({
          tool: c.tool,
          server: c.server,
          status: c.status,
          arguments: c.arguments,
          jsonrpcId: c.jsonrpcId,
          error: c.error,
        })),
        events: trace.events
          .filter((e) => e.kind !== "connected")
          .map((e) => ({
            kind: e.kind,
            // V8's JSON.parse messages are its own; the rest of a reason must agree.
            detail: e.detail.replace(/is not JSON \(.*\), so/, "is not JSON (…), so"),
          })),
        gaps: trace.gaps,
      },
    };
  } finally {
    if (before === undefined) delete process.env[STDIO_RELAY_VARIABLE];
    else process.env[STDIO_RELAY_VARIABLE] = before;
  }
}

describe("the native stdio relay", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "m3-native-relay-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("forwards, refuses, answers and records exactly what the Node relay does", async () => {
    const node = await through("node", dir);
    const fast = await through("native", dir);
    expect(fast.received.toString("latin1")).toBe(node.received.toString("latin1"));
    expect(fast.stdout.toString("latin1")).toBe(node.stdout.toString("latin1"));
    expect(fast.trace).toEqual(node.trace);
    expect(fast.code).toBe(3);
    expect(node.code).toBe(3);
    expect(fast.stderr).toBe(node.stderr);
    // The rule held: only allowed calls and harmless lines reached the server.
    expect(node.received.toString()).not.toContain("denied_tool");
    expect(node.received.toString()).toContain('"id":1,');
  });

  test("refuses to start the server without its channel, and says why", () => {
    const marker = join(dir, "started");
    const run = spawnSync(
      native.command,
      [
        ...native.args,
        "--channel",
        join(dir, "no-such-channel.sock"),
        "--server",
        "faulty",
        "--",
        process.execPath,
        "-e",
        `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
      ],
      { encoding: "utf8", input: "" },
    );
    expect(run.status).toBe(70);
    expect(run.stderr).toContain("cannot reach the test kit's channel");
    expect(run.stderr).toContain('not starting server "faulty"');
    expect(existsSync(marker)).toBe(false);
  });

  test("a command that cannot start ends the relay with 127 and the reason, recorded", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const { capture, servers } = await kit.capture({
      servers: [{ name: "ghost", command: join(dir, "no-such-program") }],
    });
    const wrapped = servers[0]!;
    if (wrapped.kind !== "stdio") throw new Error("stdio expected");
    const run = spawnSync(wrapped.command, [...wrapped.args], { encoding: "utf8", input: "" });
    expect(run.status).toBe(127);
    expect(run.stderr).toMatch(/cannot start .*ENOENT/);
    for (let waited = 0; waited < 3000; waited += 20) {
      if (capture.trace.events.some((event) => event.kind === "process_exit")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const exit = capture.trace.events.find((event) => event.kind === "process_exit");
    expect(exit?.detail).toMatch(/could not be started: spawn .* ENOENT/);
  });
});

test("the relay choice: native when built from this source, Node when asked or when it is not", () => {
  expect(stdioRelayLaunch("node")).toMatchObject({ kind: "node", command: process.execPath });
  expect(stdioRelayLaunch("native").kind).toBe("native");
});
