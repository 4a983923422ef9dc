// What input validation costs a session: the checks that run before anything starts
// (`kit.agents([...])`, a selection with credentials and a provider; `agent.session({...})`,
// two servers, an allow-list and a timeout; one `send()` options check) against the
// baseline of one whole session measured in the same run: open, one turn with one real
// tool call through the wire capture, close (the deterministic test harness, the shipping
// server as a real process behind the stdio relay). Nothing here is mocked; the figures
// are medians of rounds, and the line to read is the ratio: validation per session as a
// fraction of a session.
//
// Run on its own: `npx tsx bench/validation.ts` (after `npm run build`).
import { join } from "node:path";
import { MCPTestKit, type SessionOptions, type StdioServer } from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";
import { median } from "./report";

const SHIPPING = join(__dirname, "..", "examples", "shipping");
const shipping: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(SHIPPING, "shipping-server.mjs")],
  cwd: SHIPPING,
  env: { SHIPPING_MODE: "bench" },
};
const billing: StdioServer = { ...shipping, name: "billing" };
const options: SessionOptions = {
  servers: [shipping, billing],
  tools: ["shipping:shipping_quote", "billing:shipping_quote"],
  timeout: 60_000,
};
const prompt = 'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply quoted';

/** Microseconds per validation of one session's inputs, over `count` sessions. */
function validationMicros(kit: MCPTestKit, count: number): number {
  process.env.M3_BENCH_VALIDATION_KEY ??= "sk-bench-not-a-real-key";
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const [agent] = kit.agents([
      {
        harness: "test",
        models: ["m"],
        credentialEnv: { OPENAI_API_KEY: "M3_BENCH_VALIDATION_KEY" },
        provider: {
          name: "bench",
          baseUrl: "http://127.0.0.1:9/v1",
          wireApi: "responses",
          envKey: "OPENAI_API_KEY",
        },
      },
    ]);
    agent!.session(options);
  }
  return ((performance.now() - started) * 1000) / count;
}

/** Microseconds of one whole session: open, one turn with a real tool call, close. */
async function sessionMicros(kit: MCPTestKit): Promise<number> {
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
  const started = performance.now();
  const session = agent!.session({ server: shipping, tools: ["shipping:shipping_quote"] });
  {
    await using open = await session.open();
    const turn = await open.send(prompt, { timeout: 30_000 });
    if (turn.toolCalls.length !== 1 || turn.toolCalls[0]!.status !== "success") {
      throw new Error(`the bench turn did not make its tool call: ${JSON.stringify(turn.error)}`);
    }
  }
  return (performance.now() - started) * 1000;
}

export async function benchValidation({ rounds = 7, count = 2000 } = {}): Promise<void> {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  validationMicros(kit, 500); // warm-up: JIT, schema initialization
  await sessionMicros(kit);
  const validation: number[] = [];
  const sessions: number[] = [];
  for (let round = 0; round < rounds; round++) {
    validation.push(validationMicros(kit, count));
    sessions.push(await sessionMicros(kit));
  }
  const perValidation = median(validation);
  const perSession = median(sessions);
  console.log("\nInput validation per session (selection + session options), medians:");
  console.log(`  one whole session (baseline)   ${(perSession / 1000).toFixed(1).padStart(9)} ms`);
  console.log(`  validation of its inputs       ${perValidation.toFixed(1).padStart(9)} µs`);
  console.log(
    `  ratio                          ${(perValidation / perSession).toExponential(2).padStart(9)} × baseline`,
  );
  // Checking what a test passed must cost nothing next to the session it starts.
  const ratio = perValidation / perSession;
  console.log(
    `  validation: ${ratio.toExponential(2)}× a session; target ≤ 1e-3×: ${ratio <= 1e-3 ? "met" : "NOT met"}`,
  );
}

if (require.main === module) {
  benchValidation().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
