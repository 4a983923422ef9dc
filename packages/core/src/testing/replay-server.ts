// The process behind replayServer(): an MCP stdio server that answers from a recording.
//   node replay-server.js <recording.json>
import { readFileSync } from "node:fs";
import { canonicalJson } from "../evidence/canonical.js";
import { parseRecording, type RecordedExchange } from "./recording.js";

const path = process.argv[2];
if (!path) {
  process.stderr.write("replay-server: usage: replay-server.js <recording.json>\n");
  process.exit(2);
}
let exchanges: readonly RecordedExchange[];
let server: string;
try {
  const recording = parseRecording(readFileSync(path, "utf8"), path);
  exchanges = recording.exchanges;
  server = recording.server;
} catch (error) {
  process.stderr.write(`replay-server: ${(error as Error).message}\n`);
  process.exit(1);
}
const used = new Set<number>();

function keyOf(method: string, params: unknown): string {
  const copy =
    typeof params === "object" && params !== null ? { ...(params as Record<string, unknown>) } : {};
  delete copy._meta;
  return `${method} ${canonicalJson(copy)}`;
}

function send(message: unknown): void {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function answer(request: { id: unknown; method: string; params?: Record<string, unknown> }): void {
  const key = keyOf(request.method, request.params);
  const candidates = exchanges
    .map((exchange, index) => ({ exchange, index }))
    .filter(
      ({ exchange }) =>
        keyOf(exchange.method, exchange.params) === key ||
        (request.method === "initialize" && exchange.method === "initialize"),
    );
  const next = candidates.find(({ index }) => !used.has(index)) ?? candidates.at(-1);
  if (!next) {
    const sameMethod = exchanges.filter((exchange) => exchange.method === request.method).length;
    const message =
      `jest-m3 replay: the recording of "${server}" has no answer for ${request.method} ` +
      `${canonicalJson(request.params ?? {})} (it has ${sameMethod} ${request.method} request(s) with other params). ` +
      `Record again with this request, or change the test to send a recorded one.`;
    process.stderr.write(`${message}\n`);
    send({
      jsonrpc: "2.0",
      id: request.id,
      error: { code: -32603, message, data: { code: "M3_REPLAY_MISSING", method: request.method } },
    });
    return;
  }
  used.add(next.index);
  const token =
    request.params?._meta && (request.params._meta as { progressToken?: unknown }).progressToken;
  for (const notification of next.exchange.notifications ?? []) {
    let params = notification.params;
    if (notification.method === "notifications/progress") {
      if (token === undefined) continue;
      params = { ...(params as Record<string, unknown>), progressToken: token };
    }
    send({
      jsonrpc: "2.0",
      method: notification.method,
      ...(params === undefined ? {} : { params }),
    });
  }
  if (next.exchange.error) send({ jsonrpc: "2.0", id: request.id, error: next.exchange.error });
  else send({ jsonrpc: "2.0", id: request.id, result: next.exchange.result });
}

let buffer = "";
process.stdin.on("data", (chunk: Buffer) => {
  buffer += chunk.toString("utf8");
  let index = buffer.indexOf("\n");
  while (index >= 0) {
    const line = buffer.slice(0, index).trim();
    buffer = buffer.slice(index + 1);
    index = buffer.indexOf("\n");
    if (!line) continue;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      process.stderr.write(
        `replay-server: ignoring a line that is not JSON: ${line.slice(0, 200)}\n`,
      );
      continue;
    }
    if (typeof message.method === "string" && message.id !== undefined) {
      answer(message as { id: unknown; method: string; params?: Record<string, unknown> });
    }
  }
});
process.stdin.on("end", () => process.exit(0));
