/**
 * Load on the wire capture alone: a plain MCP SDK client, standing in for a harness,
 * launches the relay command the kit hands out and sends 200 shipping_quote calls per
 * second for 10 seconds, without waiting for answers. Every call must be recorded, once,
 * with its own arguments and result, exactly as the server received it.
 */
import { performance } from "node:perf_hooks";
import { join } from "node:path";
import { MCPTestKit } from "jest-m3";
import { connectCaptured } from "@jest-m3/core/testing";
import { SHIPPING_SERVER, isRunning, jsonLines } from "../support/user-project";

const RATE_PER_SECOND = 200;
const SECONDS = 10;
const TOTAL = RATE_PER_SECOND * SECONDS;
const ZONES = ["local", "regional", "international"] as const;
const RATES = { local: 2, regional: 3.5, international: 7 };

interface Quote {
  readonly weight_kg: number;
  readonly zone: (typeof ZONES)[number];
}

const quoteOf = (index: number): Quote => ({
  weight_kg: index + 1,
  zone: ZONES[index % ZONES.length]!,
});

const byWeight = (calls: readonly Quote[]): Quote[] =>
  [...calls].sort((a, b) => a.weight_kg - b.weight_kg);

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

test(`${RATE_PER_SECOND} calls per second for ${SECONDS} s through the wire capture: none lost`, async () => {
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const log = join(await kit.tempDir("m3-wire-rate-"), "calls.jsonl");
  const { capture, servers } = await kit.capture({
    servers: [
      {
        name: "shipping",
        command: process.execPath,
        args: [SHIPPING_SERVER],
        env: { SHIPPING_CALL_LOG: log },
      },
    ],
    tools: ["shipping:shipping_quote"],
  });
  const client = await connectCaptured(servers[0]!);
  const pids = capture.pids;

  // Paced: call i goes out at start + i × 5 ms (those that fell behind go at the next tick).
  capture.beginTurn("load");
  const answers: Promise<unknown>[] = [];
  const start = performance.now();
  while (answers.length < TOTAL) {
    const due = Math.min(
      TOTAL,
      Math.floor(((performance.now() - start) * RATE_PER_SECOND) / 1000) + 1,
    );
    while (answers.length < due) {
      answers.push(
        client.callTool({ name: "shipping_quote", arguments: { ...quoteOf(answers.length) } }),
      );
    }
    await tick();
  }
  const sendingMs = performance.now() - start;
  const results = await Promise.all(answers);
  await capture.endTurn();
  const trace = capture.trace;
  await client.close();

  const sent = Array.from({ length: TOTAL }, (_, index) => quoteOf(index));
  // The pace held: 2000 calls took 10 s to send (not a burst, not a crawl).
  expect(sendingMs).toBeGreaterThanOrEqual(SECONDS * 1000 - 10);
  expect(sendingMs).toBeLessThan(SECONDS * 1000 + 1000);
  // The client got every answer, each for its own call.
  expect(
    results.map((result) => (result as { structuredContent?: unknown }).structuredContent),
  ).toEqual(
    sent.map((quote) => ({ amount: 5 + quote.weight_kg * RATES[quote.zone], currency: "USD" })),
  );
  // The kit recorded every call once, successful, in the window, with its arguments and result.
  expect(trace.gaps).toEqual([]);
  expect(trace.toolCalls).toHaveLength(TOTAL);
  expect(new Set(trace.toolCalls.map((call) => call.jsonrpcId)).size).toBe(TOTAL);
  expect(
    trace.toolCalls.filter(
      (call) =>
        call.status !== "success" || call.turnId !== "load" || call.tool !== "shipping_quote",
    ),
  ).toEqual([]);
  expect(byWeight(trace.toolCalls.map((call) => call.arguments as unknown as Quote))).toEqual(sent);
  for (const call of trace.toolCalls) {
    const quote = call.arguments as unknown as Quote;
    expect((call.result as { structuredContent?: unknown }).structuredContent).toEqual({
      amount: 5 + quote.weight_kg * RATES[quote.zone],
      currency: "USD",
    });
  }
  // And the server received exactly those calls.
  const received = jsonLines<{ arguments: Quote }>(log).map((line) => line.arguments);
  expect(received).toHaveLength(TOTAL);
  expect(byWeight(received)).toEqual(sent);

  await kit.close();
  expect(pids).toHaveLength(2); // the relay and the server
  expect(pids.filter(isRunning)).toEqual([]);
}, 60_000);
