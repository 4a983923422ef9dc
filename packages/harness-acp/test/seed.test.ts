/**
 * The project's seed, unchanged, on both ACP agents, through the kit as a user's test
 * drives it: the harness is found by name through this package's manifest, two turns
 * share one session, each with its own wire evidence, and `toHaveToolCall` addresses them
 * per turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect, type StdioServer } from "jest-m3";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { callLog, descendants, isRunning, REPO_ROOT } from "./support/acp";

jest.setTimeout(180_000);

let model: ScriptedModel;
let logs: string;
beforeAll(async () => {
  logs = mkdtempSync(join(tmpdir(), "m3-seed-"));
  model = await startScriptedModel({
    rules: [
      {
        name: "quote",
        when: { user: /weight_kg (\d+) in zone (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply: "The quote for {{match.1}} kg is ready." },
        ],
      },
    ],
  });
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
    const server: StdioServer = {
      name: "shipping",
      command: process.execPath,
      args: [join(REPO_ROOT, "examples/shipping/shipping-server.mjs")],
      env: { SHIPPING_CALL_LOG: log },
      cwd: join(REPO_ROOT, "examples/shipping"),
    };
    await using kit = new MCPTestKit({ env: {} });
    const [agent] = kit.agents([
      { harness, models: ["scripted-1"], provider: model.providerFor(dialect) },
    ]);
    const session = agent!.session({
      server,
      tools: ["shipping:shipping_quote"],
      timeout: 120_000,
    });
    let first, second;
    let pids: number[];
    {
      await using open = await session.open();
      first = await open.send("Call shipping_quote once for weight_kg 2 in zone local.", {
        timeout: 120_000,
      });
      second = await open.send("Call shipping_quote once for weight_kg 3 in zone regional.", {
        timeout: 120_000,
      });
      pids = kit.processes.flatMap((child) => [child.pid, ...descendants(child.pid)]);
    }
    const result = session.result;

    expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
    expect(first.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    expect(second.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    expect(first.snapshot.sessionId).toBe(second.snapshot.sessionId);
    expect(result).toHaveToolCall("shipping_quote", {
      turn: first,
      server: "shipping",
      status: "success",
      count: 1,
    });
    expect(result)
      .toHaveToolCall("shipping_quote")
      .inTurn(second)
      .onServer("shipping")
      .withStatus("success")
      .times(1);

    expect(result.snapshot.agent).toEqual(
      expect.objectContaining({ harness, model: "scripted-1", version }),
    );
    expect(first.response?.text).toBe("The quote for 2 kg is ready.");
    for (const [turn, args] of [
      [first, { weight_kg: 2, zone: "local" }],
      [second, { weight_kg: 3, zone: "regional" }],
    ] as const) {
      expect(
        turn.toolCalls.map((call) => [call.server, call.tool, call.arguments, call.evidence]),
      ).toEqual([["shipping", "shipping_quote", args, "both"]]);
    }
    expect(callLog(log).map((entry) => entry.arguments)).toEqual([
      { weight_kg: 2, zone: "local" },
      { weight_kg: 3, zone: "regional" },
    ]);
    expect(pids.filter(isRunning)).toEqual([]);
  });
});
