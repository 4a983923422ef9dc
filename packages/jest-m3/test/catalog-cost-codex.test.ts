// The context cost of a server's catalog on a real Codex session (scripted model): the
// same catalog costs the same bytes in two runs, and a longer tool description costs
// exactly its extra bytes, as Codex sent them to its model (measured by the provider tap).
import { join } from "node:path";
import codexHarness from "@jest-m3/harness-codex";
import { useScriptedModel, quoteRule } from "@jest-m3/test-support";
import {
  MCPTestKit,
  ExecutionOutcome,
  catalogCostOf,
  expect,
  type ServerCatalogCost,
} from "jest-m3";

jest.setTimeout(120_000);

const model = useScriptedModel({ rules: [quoteRule()] });

async function catalogWith(description: string): Promise<ServerCatalogCost> {
  await using kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"], provider: model.provider }]);
  const result = await agent!.run("Please quote one parcel.", {
    server: {
      name: "shipping",
      command: process.execPath,
      args: [join(__dirname, "fixtures", "described-quote-server.mjs")],
      env: { QUOTE_DESCRIPTION: description },
    },
  });
  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  return catalogCostOf(result).servers.find((s) => s.server === "shipping")!;
}

test("stable across runs; a longer description costs exactly its extra bytes", async () => {
  const short = "Quote a parcel.";
  const long = `${short} Weight in kilograms, zone local or regional; returns an amount in USD.`;
  const first = await catalogWith(short);
  const again = await catalogWith(short);
  const longer = await catalogWith(long);
  expect(first.bytes).toBeGreaterThan(0);
  expect(again.bytes).toBe(first.bytes);
  expect(again.tools).toEqual(first.tools);
  expect(longer.tools[0]!.descriptionBytes - first.tools[0]!.descriptionBytes).toBe(
    Buffer.byteLength(long) - Buffer.byteLength(short),
  );
  expect(longer.bytes - first.bytes).toBe(Buffer.byteLength(long) - Buffer.byteLength(short));
  expect(longer.estimatedTokens).toBeGreaterThan(first.estimatedTokens);
});
