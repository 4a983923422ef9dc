// The stdio relay's own cost: peak RSS of the relay process and the time it adds at open,
// for the Node relay (today's) and the native one, against the shipping server started
// bare. "Open" is spawn → the answer to `initialize` (what an agent waits for before it can
// list tools). Rounds rotate the order of the three paths; figures are medians. Every round
// checks the server's answers (initialize, one quote of 9 USD) and, through the relays, that
// the kit recorded the call.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { MCPTestKit } from "@jest-m3/core";
import { STDIO_RELAY_VARIABLE, stdioRelayLaunch } from "@jest-m3/core/runner";
import { median } from "./report";

const script = join(__dirname, "..", "examples", "shipping", "shipping-server.mjs");
type Path = "bare" | "node relay" | "native relay";
const PATHS: readonly Path[] = ["bare", "node relay", "native relay"];

interface Sample {
  readonly open: number;
  /** VmHWM of the process the client spawned (the relay, or the bare server), bytes. */
  readonly hwm: number;
}

function vmHwm(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(match[1]) * 1024;
}

class LineClient {
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (typeof message.id === "number") this.waiting.get(message.id)?.(message);
    });
  }
  request(id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
}

async function once(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  quotes: boolean,
): Promise<Sample> {
  const started = performance.now();
  const child = spawn(command, [...args], { env, stdio: "pipe" });
  try {
    return await exercise(child, started, quotes);
  } finally {
    child.kill("SIGKILL"); // only if it is still there: a failed check must not hang the run
  }
}

async function exercise(
  child: ChildProcessWithoutNullStreams,
  started: number,
  quotes: boolean,
): Promise<Sample> {
  const client = new LineClient(child);
  const init = await client.request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  const open = performance.now() - started;
  if (!quotes) {
    // The echo server: the answer is the request itself.
    if (init.method !== "initialize") throw new Error(`no echo: ${JSON.stringify(init)}`);
    const hwm = vmHwm(child.pid!);
    child.stdin.end();
    await new Promise((resolve) => child.once("close", resolve));
    return { open, hwm };
  }
  if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  for (let id = 2; id < 22; id++) {
    const reply = await client.request(id, "tools/call", {
      name: "shipping_quote",
      arguments: { weight_kg: 2, zone: "local" },
    });
    if (!JSON.stringify(reply).includes('"amount":9,"currency":"USD"'))
      throw new Error(`bad quote: ${JSON.stringify(reply)}`);
  }
  const hwm = vmHwm(child.pid!);
  child.stdin.end();
  await new Promise((resolve) => child.once("close", resolve));
  return { open, hwm };
}

interface Server {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Run 20 quotes and check them (the shipping server); else the echo answers initialize. */
  readonly quotes: boolean;
}

const SHIPPING: Server = {
  label: "shipping server (Node), 20 quotes",
  command: process.execPath,
  args: [script],
  quotes: true,
};
// A server that costs almost nothing to start, so what the relay adds is not lost in the
// noise of a Node server's own start: `cat` answers initialize with the request itself.
const ECHO: Server = { label: "echo server (cat)", command: "cat", args: [], quotes: false };

async function measure(server: Server, rounds: number, nativeBuilt: boolean): Promise<void> {
  const samples = new Map<Path, Sample[]>(PATHS.map((path) => [path, []]));
  const run = async (path: Path, counted: boolean): Promise<void> => {
    if (path === "bare") {
      const sample = await once(server.command, server.args, process.env, server.quotes);
      if (counted) samples.get(path)!.push(sample);
      return;
    }
    const choice = path === "node relay" ? "node" : "native";
    if (choice === "native" && !nativeBuilt) return;
    process.env[STDIO_RELAY_VARIABLE] = choice;
    await using kit = new MCPTestKit({ env: {} });
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", command: server.command, args: [...server.args] }],
      tools: ["shipping:shipping_quote"],
    });
    delete process.env[STDIO_RELAY_VARIABLE];
    const relay = servers[0]!;
    if (relay.kind !== "stdio") throw new Error("stdio expected");
    if (relay.command !== stdioRelayLaunch(choice).command) throw new Error(`not the ${path}`);
    const sample = await once(
      relay.command,
      relay.args,
      { ...process.env, ...relay.env },
      server.quotes,
    );
    await capture.flush();
    if (server.quotes) {
      const recorded = capture.trace.toolCalls.filter((call) => call.status === "success").length;
      if (recorded !== 20) throw new Error(`${path}: the kit recorded ${recorded} of 20 calls`);
    } else if (!capture.trace.messages.some((message) => message.direction === "from_server")) {
      throw new Error(`${path}: the echo was not mirrored`);
    }
    if (counted) samples.get(path)!.push(sample);
  };
  for (const path of PATHS) await run(path, false); // warm-up: page cache, JIT of this side
  for (let round = 0; round < rounds; round++) {
    const order = PATHS.map((_, offset) => PATHS[(round + offset) % PATHS.length]!);
    for (const path of order) await run(path, true);
  }
  const MB = 1024 * 1024;
  const open = (path: Path) => median(samples.get(path)!.map((one) => one.open));
  const hwm = (path: Path) => median(samples.get(path)!.map((one) => one.hwm));
  console.log(
    `\nrelay, ${server.label}: spawn → initialize answered, and peak RSS of the spawned process, median of ${rounds} rounds`,
  );
  for (const path of PATHS) {
    if (samples.get(path)!.length === 0) continue;
    const added =
      path === "bare" ? "baseline" : `added at open ${(open(path) - open("bare")).toFixed(1)} ms`;
    console.log(
      `  ${path.padEnd(13)} open ${open(path).toFixed(1).padStart(6)} ms  peak RSS ${(hwm(path) / MB).toFixed(1).padStart(5)} MB  ${added}`,
    );
    console.log(
      `    every round, open ms: ${samples
        .get(path)!
        .map((one) => one.open.toFixed(1))
        .join(" ")}`,
    );
  }
  if (samples.get("native relay")!.length > 0) {
    const addedNode = open("node relay") - open("bare");
    const addedNative = open("native relay") - open("bare");
    console.log(
      `  native / node: peak RSS ${(hwm("native relay") / hwm("node relay")).toFixed(3)}×, open ${(open("native relay") / open("node relay")).toFixed(3)}×, added at open ${(addedNative / addedNode).toFixed(3)}×`,
    );
    const met = hwm("native relay") <= 10 * MB && addedNative <= 10;
    console.log(
      `  target, relay ≤ 10 MB and ≤ 10 ms added at open: ${met ? "met" : "NOT met"} (native ${(hwm("native relay") / MB).toFixed(1)} MB, ${addedNative.toFixed(1)} ms; node ${(hwm("node relay") / MB).toFixed(1)} MB, ${addedNode.toFixed(1)} ms)`,
    );
  }
  console.log(
    server.quotes
      ? "  every round: initialize answered, 20 quotes of 9 USD (structuredContent), each relayed call recorded by the kit"
      : "  every round: initialize echoed, the echo mirrored to the kit",
  );
}

export async function benchRelay({ rounds = 7, echoRounds = 20 } = {}): Promise<void> {
  const native = stdioRelayLaunch();
  if (native.kind !== "native") {
    console.log(`\nrelay: the native relay is not available (${native.reason}); Node only`);
  }
  await measure(ECHO, echoRounds, native.kind === "native");
  await measure(SHIPPING, rounds, native.kind === "native");
}

if (require.main === module) {
  benchRelay().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
