/**
 * The project's seed, unchanged, on both ACP agents, through the kit as a user's test
 * drives it: the harness is found by name through this package's manifest, two turns
 * share one session, each with its own wire evidence, and `toHaveToolCall` addresses them
 * per turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit, expect } from "jest-m3";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import type { ProviderDialect } from "@jest-m3/core/harness";
import {
  expectSeed,
  isRunning,
  processTree,
  REPO_ROOT,
  runSeed,
  seedRule,
  shippingServer,
} from "@jest-m3/test-support";

jest.setTimeout(180_000);

let model: ScriptedModel;
let logs: string;
beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), "m3-seed-"));
  model = await startScriptedModel({ rules: [seedRule("The quote for {{match.1}} kg is ready.")] });
});
afterAll(async () => {
  await model.close();
  rmSync(logs, { recursive: true, force: true });
});

describe.each([
  ["gemini", "gemini", "0.61.0"],
  ["opencode", "chat-completions", "1.18.33"],
] as const)("the seed on %s", (harness, dialect: ProviderDialect, version) => {
  test("two turns share one session, one shipping_quote each, wire and reported", async () => {
    const log = join(logs, `${harness}.jsonl`);
    const server = shippingServer(log, { cwd: join(REPO_ROOT, "examples/shipping") });
    await using kit = new MCPTestKit({ env: {} });
    const [agent] = kit.agents([
      { harness, models: ["scripted-1"], provider: model.providerFor(dialect) },
    ]);
    const session = agent!.session({
      server,
      tools: ["shipping:shipping_quote"],
      timeout: 120_000,
    });
    const run = await runSeed(session, () => processTree(kit), 120_000);
    expectSeed(run, log);
    expect(run.result.snapshot.agent).toEqual(
      expect.objectContaining({ harness, model: "scripted-1", version }),
    );
    expect(run.first.response?.text).toBe("The quote for 2 kg is ready.");
    expect(run.pids.filter(isRunning)).toEqual([]);
  });
});
