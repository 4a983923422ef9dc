// The provider tap's own cost: the latency it adds to one model request, and the memory it
// holds, against the same client talking to the provider directly, both measured in this
// run. The provider is the scripted model (a streamed Responses answer with a tool call, to
// a request the size of a coding agent's: a system prompt, a conversation and 30 tools);
// the client reads every answer to its end and checks it. Direct and tapped requests
// alternate, one at a time, over keep-alive connections; figures are medians (p50) and p95.
// Memory is the heap and buffers still held after a full GC, tap side minus direct side,
// after the same number of requests (the tap keeps one record per request).
import { Agent, request } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ProviderTap } from "@jest-m3/core";
import { startScriptedModel } from "@jest-m3/scripted-model";
import { median } from "./report";

const TARGET_MS = 1;
const TARGET_MB = 5;
const MB = 1024 * 1024;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A request body the size of a coding agent's: instructions, a conversation, 30 tools. */
function body(): string {
  const tools = Array.from({ length: 30 }, (_, i) => ({
    type: "function",
    name: i === 0 ? "mcp__shipping__shipping_quote" : `builtin_tool_${i}`,
    description: `Tool number ${i}. `.repeat(20),
    parameters: {
      type: "object",
      properties: { weight_kg: { type: "number" }, zone: { type: "string", enum: ["local"] } },
      required: ["weight_kg"],
    },
  }));
  const input = [
    { role: "developer", content: "You are a coding agent. ".repeat(200) },
    { role: "user", content: "Quote weight_kg 2 in zone local, please." },
  ];
  return JSON.stringify({
    model: "gpt-5.5",
    instructions: "Be brief.",
    input,
    tools,
    stream: true,
  });
}

function post(url: string, payload: string, agent: Agent): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const out = request(
      url,
      {
        method: "POST",
        agent,
        // As agents' clients send a body they hold whole: with its length, not chunked.
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ ms: performance.now() - started, text: Buffer.concat(chunks).toString() }),
        );
        res.on("error", reject);
      },
    );
    out.on("error", (error: Error) => reject(new Error(`${url}: ${error.message}`)));
    out.end(payload);
  });
}

function heldBytes(): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The tap's added latency per model request and its memory, against the provider direct. */
export async function benchProviderTap(requests = 400): Promise<void> {
  await using model = await startScriptedModel({
    rules: [
      {
        when: { user: /quote/i },
        steps: [{ call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } }],
      },
    ],
  });
  const payload = body();
  const direct = `${model.provider.baseUrl}/responses`;
  const check = (text: string, side: string) => {
    if (!text.includes("response.completed") || !text.includes("shipping_quote"))
      throw new Error(`${side}: the answer was not the scripted call: ${text.slice(0, 200)}`);
  };

  const tap = await ProviderTap.start(model.provider);
  const tapped = `${tap.provider.baseUrl}/responses`;
  const directAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const tapAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // Warm both paths (JIT, connections).
    for (let i = 0; i < 30; i++) {
      check((await post(direct, payload, directAgent)).text, "direct");
      check((await post(tapped, payload, tapAgent)).text, "tap");
    }
    await tap.endTurn();
    const times = { direct: [] as number[], tap: [] as number[] };
    const before = tap.requests.length;
    for (let i = 0; i < requests; i++) {
      // Alternate which side goes first, so neither always meets a warmer machine.
      const order = i % 2 === 0 ? (["direct", "tap"] as const) : (["tap", "direct"] as const);
      for (const side of order) {
        const answer = await post(
          side === "direct" ? direct : tapped,
          payload,
          side === "direct" ? directAgent : tapAgent,
        );
        check(answer.text, side);
        times[side].push(answer.ms);
      }
    }
    await tap.endTurn();
    const recorded = tap.requests.length - before;
    if (recorded !== requests)
      throw new Error(`the tap recorded ${recorded} of ${requests} requests`);
    const usage = tap.requests.at(-1)?.usage;
    if (usage === undefined || "unavailable" in usage)
      throw new Error(`the tap read no usage: ${JSON.stringify(usage)}`);

    // Memory: the same number of requests again on each side, heap after GC before and after.
    const directStart = heldBytes();
    for (let i = 0; i < requests; i++) await post(direct, payload, directAgent);
    const directHeld = heldBytes() - directStart;
    const tapStart = heldBytes();
    for (let i = 0; i < requests; i++) await post(tapped, payload, tapAgent);
    await tap.endTurn();
    const tapHeld = heldBytes() - tapStart;
    const overMb = (tapHeld - directHeld) / MB;

    const p50 = { direct: median(times.direct), tap: median(times.tap) };
    const p95 = { direct: percentile(times.direct, 95), tap: percentile(times.tap, 95) };
    const added = p50.tap - p50.direct;
    console.log(
      `\nprovider tap: one streamed Responses request (${(payload.length / 1024).toFixed(0)} KB, 30 tools) to the scripted model, ${requests} per side, alternating`,
    );
    console.log(
      `  direct  p50 ${p50.direct.toFixed(3)} ms  p95 ${p95.direct.toFixed(3)} ms\n  tap     p50 ${p50.tap.toFixed(3)} ms  p95 ${p95.tap.toFixed(3)} ms  (every request recorded, usage read)`,
    );
    console.log(
      `  provider-tap: tap / direct p50 ${(p50.tap / p50.direct).toFixed(3)}×, added ${added.toFixed(3)} ms per request; target ≤ ${TARGET_MS} ms: ${added <= TARGET_MS ? "met" : "NOT met"}`,
    );
    console.log(
      `  provider-tap: memory held after ${requests} requests, tap ${(tapHeld / MB).toFixed(2)} MB vs direct ${(directHeld / MB).toFixed(2)} MB, ${overMb.toFixed(2)} MB over (${(tapHeld / Math.max(1, directHeld) || 0).toFixed(2)}×); target ≤ ${TARGET_MB} MB: ${overMb <= TARGET_MB ? "met" : "NOT met"}`,
    );
  } finally {
    directAgent.destroy();
    tapAgent.destroy();
    await tap.close();
  }
}

if (require.main === module) {
  benchProviderTap().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
