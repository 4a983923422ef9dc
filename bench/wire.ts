// Latency of one tools/call straight to the shipping server vs through the wire capture
// (the stdio relay, the HTTP proxy). Same process, same server script; rounds alternate
// between the paths so machine noise hits all alike.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";

const script = join(__dirname, "..", "examples", "shipping", "shipping-server.mjs");
const call = { name: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } };

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function stdioClient(command: string, args: readonly string[]): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args: [...args] }));
  return client;
}

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function startHttpServer(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [script, "--http", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve) => {
    let seen = "";
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { url, stop: () => child.kill("SIGKILL") };
}

export async function benchWire({ calls = 250, rounds = 2 } = {}): Promise<void> {
  await using kit = new MCPTestKit({ env: {} });
  const http = await startHttpServer();
  try {
    const { servers } = await kit.capture({
      servers: [
        { name: "shipping", command: process.execPath, args: [script] },
        { name: "shipping-http", url: http.url },
      ],
    });
    const relay = servers[0]!;
    const proxy = servers[1]!;
    if (relay.kind !== "stdio" || proxy.kind !== "http")
      throw new Error("unexpected capture kinds");
    const paths: Array<[string, Client]> = [
      ["stdio direct", await stdioClient(process.execPath, [script])],
      ["stdio via relay", await stdioClient(relay.command, relay.args)],
      ["http direct", await httpClient(http.url)],
      ["http via proxy", await httpClient(proxy.url)],
    ];
    const samples = new Map<string, number[]>(paths.map(([label]) => [label, []]));
    for (const [, client] of paths)
      for (let index = 0; index < 200; index++) await client.callTool(call);
    for (let round = 0; round < rounds; round++) {
      for (const [label, client] of paths) {
        const into = samples.get(label)!;
        for (let index = 0; index < calls; index++) {
          const started = performance.now();
          await client.callTool(call);
          into.push(performance.now() - started);
        }
      }
    }
    const stats = new Map(
      [...samples].map(([label, values]) => {
        const sorted = [...values].sort((a, b) => a - b);
        return [label, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }] as const;
      }),
    );
    console.log(`\nwire: tools/call latency, ${calls * rounds} calls per path (ms)`);
    for (const [label, { p50, p99 }] of stats) {
      const base = stats.get(label.startsWith("stdio") ? "stdio direct" : "http direct")!;
      const added = label.endsWith("direct")
        ? "baseline"
        : `added p50 ${(p50 - base.p50).toFixed(3)} ms, p99 ${(p99 - base.p99).toFixed(3)} ms`;
      console.log(
        `  ${label.padEnd(16)} p50 ${p50.toFixed(3).padStart(7)}  p99 ${p99.toFixed(3).padStart(7)}  ${added}`,
      );
    }
    // What the capture adds to a call: a relay's hop (stdio), a proxy's (HTTP).
    const added = (label: string, base: string) => stats.get(label)!.p50 - stats.get(base)!.p50;
    const relayAdded = added("stdio via relay", "stdio direct");
    const proxyAdded = added("http via proxy", "http direct");
    console.log(
      `  wire: added p50 relay ${relayAdded.toFixed(3)} ms, proxy ${proxyAdded.toFixed(3)} ms; target ≤ 1 ms and ≤ 2 ms: ${relayAdded <= 1 && proxyAdded <= 2 ? "met" : "NOT met"}`,
    );
    await Promise.all(paths.map(([, client]) => client.close()));
  } finally {
    http.stop();
  }
}
