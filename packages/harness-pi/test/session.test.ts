/**
 * The seed on Pi, through the kit as a user's test drives it: the harness is found by name
 * through this package's manifest, two turns share one Pi session id, each makes exactly one
 * shipping_quote call, reported by Pi and seen on the wire, and the server's own log holds
 * exactly those two calls with those arguments.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit, expect } from "jest-m3";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { expectSeed, runSeed, seedRule } from "@jest-m3/test-support";
import { isRunning, processTree, shippingServer } from "./support/pi";

jest.setTimeout(120_000);

let model: ScriptedModel;
let logs: string;
beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), "m3-pi-seed-"));
  model = await startScriptedModel({ rules: [seedRule()] });
});
afterAll(async () => {
  await model.close();
  rmSync(logs, { recursive: true, force: true });
});

describe.each(["responses", "chat-completions", "anthropic-messages"] as const)(
  "the seed over %s",
  (dialect) => {
    test("two turns share one Pi session, one shipping_quote each, wire and reported", async () => {
      const log = join(logs, `${dialect}.jsonl`);
      const before = model.journal.entries.length;
      await using kit = new MCPTestKit({ env: {} });
      // Cold (`warm: false`): the session's own Pi, gone at close.
      const [agent] = kit.agents([
        {
          harness: "pi",
          models: ["scripted-1"],
          provider: model.providerFor(dialect),
          options: { warm: false },
        },
      ]);
      const session = agent!.session({
        server: shippingServer(log),
        tools: ["shipping:shipping_quote"],
        timeout: 90_000,
      });
      const run = await runSeed(session, () => processTree(kit));
      const { first, second, pids } = run;
      expectSeed(run, log);
      expect(run.result.snapshot.agent).toEqual(
        expect.objectContaining({ harness: "pi", model: "scripted-1", version: "1.6.0" }),
      );
      // The amounts are the server's: the bridge hands Pi the structured result as JSON text.
      expect(first.response?.text).toBe("The quote is 9 USD.");
      expect(second.response?.text).toBe("The quote is 15.5 USD.");
      // Exactly two model requests per turn (the call, then the reply): no side requests.
      const requests = model.journal.entries.slice(before);
      expect(requests.map((entry) => [entry.dialect, entry.side])).toEqual(
        Array(4).fill([dialect, false]),
      );
      model.journal.assertNoProblems();
      expect(pids.length).toBeGreaterThanOrEqual(2);
      expect(pids.filter(isRunning)).toEqual([]);
    });
  },
);
