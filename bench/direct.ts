// tools/call round-trips through kit.direct() against a bare SDK Client, same server, same
// process. Rounds alternate between the two so machine noise hits both alike.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import { median, printComparison } from "./report";

const script = join(__dirname, "..", "examples", "shipping", "shipping-server.mjs");
const server: StdioServer = { name: "shipping", command: process.execPath, args: [script] };
const args = { weight_kg: 2, zone: "local" };

type Call = () => Promise<unknown>;

async function callsPerSecond(call: Call, calls: number): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < calls; index++) await call();
  return calls / ((performance.now() - started) / 1000);
}

export async function benchDirect({ calls = 2000, rounds = 5 } = {}): Promise<void> {
  const bare = new Client({ name: "bench", version: "1" });
  await bare.connect(new StdioClientTransport({ command: process.execPath, args: [script] }));
  const kit = new MCPTestKit({ env: {} });
  const direct = kit.direct(server);
  await direct.initialize();
  const viaBare: Call = () => bare.callTool({ name: "shipping_quote", arguments: args });
  const viaKit: Call = () => direct.callTool("shipping_quote", args);
  try {
    await callsPerSecond(viaBare, 300); // warm-up: JIT and both server processes
    await callsPerSecond(viaKit, 300);
    const bareRates: number[] = [];
    const kitRates: number[] = [];
    for (let round = 0; round < rounds; round++) {
      bareRates.push(await callsPerSecond(viaBare, calls));
      kitRates.push(await callsPerSecond(viaKit, calls));
    }
    const recorded = direct.trace.toolCalls.length;
    if (recorded !== 300 + rounds * calls) {
      throw new Error(`the kit recorded ${recorded} calls, expected ${300 + rounds * calls}`);
    }
    printComparison(
      `direct: ${calls} sequential tools/call × ${rounds} rounds (median), shipping server over stdio`,
      { label: "bare SDK Client", value: median(bareRates), unit: "calls/s" },
      [{ label: "kit.direct (recorded)", value: median(kitRates), unit: "calls/s" }],
    );
    console.log(`  every call recorded: ${recorded} tool-call records`);
  } finally {
    await bare.close();
    await kit.close();
  }
}
