// The process behind withFaults(): runs the real stdio server and relays newline-delimited
// JSON-RPC both ways, injecting the planned faults into tools/call traffic.
//   node fault-proxy.js <base64 plan> -- <command> <args...>
import { spawn } from "node:child_process";
import type { Fault, FaultPlan } from "./fault-injector.js";

const [encoded, separator, command, ...args] = process.argv.slice(2);
if (!encoded || separator !== "--" || !command) {
  process.stderr.write("fault-proxy: usage: fault-proxy.js <base64 plan> -- <command> <args...>\n");
  process.exit(2);
}
const plan = JSON.parse(Buffer.from(encoded, "base64").toString("utf8")) as FaultPlan;
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on("error", (error) => {
  process.stderr.write(`fault-proxy: cannot start ${command}: ${error.message}\n`);
  process.exit(1);
});
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => child.kill(signal));
}

/** Faults waiting for the answer of a request, by JSON-RPC id. */
const pending = new Map<string, Fault | undefined>();
const callsPerTool = new Map<string, number>();
let answered = 0;
let held: string | undefined;
let heldTimer: NodeJS.Timeout | undefined;

function crash(code: number, why: string): never {
  process.stderr.write(`fault-proxy: ${why}\n`);
  child.kill("SIGKILL");
  process.exit(code);
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = "";
  stream.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let index = buffer.indexOf("\n");
    while (index >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      if (line.trim() !== "") onLine(line);
      index = buffer.indexOf("\n");
    }
  });
}

function faultFor(message: Record<string, unknown>): Fault | undefined {
  if (message.method !== "tools/call") return undefined;
  const params = (message.params ?? {}) as { name?: unknown };
  const tool = typeof params.name === "string" ? params.name : "";
  const count = (callsPerTool.get(tool) ?? 0) + 1;
  callsPerTool.set(tool, count);
  const fault = plan.tools?.[tool];
  if (!fault || (fault.onCalls && !fault.onCalls.includes(count))) return undefined;
  return fault;
}

lines(process.stdin, (line) => {
  let message: Record<string, unknown> | undefined;
  try {
    message = JSON.parse(line) as Record<string, unknown>;
  } catch {
    message = undefined;
  }
  if (message && "method" in message && "id" in message) {
    const fault = faultFor(message);
    if (message.method === "tools/call") pending.set(JSON.stringify(message.id), fault);
    if (fault?.kind === "crash")
      crash(
        fault.exitCode ?? 1,
        `crashing on a call of ${JSON.stringify((message.params as { name?: unknown }).name)} (planned fault)`,
      );
    if (fault?.kind === "hang") return;
  }
  child.stdin.write(line + "\n");
});
process.stdin.on("end", () => child.stdin.end());

function write(line: string): void {
  process.stdout.write(line + "\n");
}

function release(): void {
  if (held === undefined) return;
  const line = held;
  held = undefined;
  if (heldTimer) clearTimeout(heldTimer);
  write(line);
}

lines(child.stdout, (line) => {
  let message: Record<string, unknown> | undefined;
  try {
    message = JSON.parse(line) as Record<string, unknown>;
  } catch {
    message = undefined;
  }
  const key = message && !("method" in message) ? JSON.stringify(message.id) : undefined;
  if (key === undefined || !pending.has(key)) {
    write(line);
    release();
    return;
  }
  const fault = pending.get(key);
  pending.delete(key);
  answered += 1;
  const after = (): void => {
    if (plan.crashAfterCalls !== undefined && answered >= plan.crashAfterCalls) {
      crash(1, `crashing after ${answered} call(s) (planned fault)`);
    }
  };
  switch (fault?.kind) {
    case "delay":
      setTimeout(() => {
        write(line);
        after();
      }, fault.ms);
      return;
    case "drop":
      after();
      return;
    case "malformed":
      write(`{"jsonrpc":"2.0","id":${key},"result":<<not json>>`);
      after();
      return;
    case "partial":
      process.stdout.write(line.slice(0, Math.floor(line.length / 2)));
      after();
      return;
    case "split": {
      const middle = Math.floor(line.length / 2);
      process.stdout.write(line.slice(0, middle));
      setTimeout(() => {
        write(line.slice(middle));
        after();
      }, 50);
      return;
    }
    case "reorder":
      release();
      held = line;
      heldTimer = setTimeout(release, 2000);
      after();
      return;
    default:
      write(line);
      release();
      after();
  }
});
