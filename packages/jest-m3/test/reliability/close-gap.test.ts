/**
 * A session that ends normally must leave complete evidence. When Codex shuts an MCP
 * server down it sends SIGTERM to the relay's process group and, about 15 ms later (seen
 * with strace, Codex 0.171), SIGKILL to the relay. The relay reports the server's exit
 * only once the server has exited, so a server that takes longer than that to shut down
 * (here 300 ms, as one that flushes its state would) always has its relay killed before it
 * says so; with the example's server the race is lost now and then, under load more
 * often. Every turn was already flushed by then: the channel closing must not count as an
 * evidence gap, or a negative assertion on the result (`.not.toHaveToolCall`) could never
 * pass. This is the deterministic form of what the load test saw.
 */
import { join } from "node:path";
import { startScriptedModel } from "@jest-m3/scripted-model";
import { ExecutionOutcome, MCPTestKit, expect, type TurnResult } from "jest-m3";
import { isRunning, jsonLines } from "../support/user-project";

const SLOW_SERVER = join(__dirname, "..", "fixtures", "slow-shipping-server.mjs");

test("a session closed normally leaves complete evidence, even when its server takes 300 ms to shut down", async () => {
  await using model = await startScriptedModel({
    rules: [
      {
        name: "quote",
        when: { user: /quote weight_kg (\d+) in zone (\w+)/ },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply: "The quote is {{result.amount}} {{result.currency}}." },
        ],
      },
    ],
  });
  await using kit = new MCPTestKit({ env: {} });
  const log = join(await kit.tempDir("m3-close-gap-"), "calls.jsonl");
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"], provider: model.provider }]);
  const session = agent!.session({
    server: {
      name: "shipping",
      command: process.execPath,
      args: [SLOW_SERVER],
      env: { SHIPPING_CALL_LOG: log, SHUTDOWN_DELAY_MS: "300" },
    },
    tools: ["shipping:shipping_quote", "shipping:shipping_wait"],
    timeout: 60_000,
  });
  let turn: TurnResult;
  {
    await using open = await session.open();
    turn = await open.send("quote weight_kg 2 in zone local");
  }
  const result = session.result;

  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(result).toHaveToolCall("shipping_quote", {
    turn,
    arguments: { weight_kg: 2, zone: "local" },
    status: "success",
    count: 1,
  });
  expect(jsonLines(log)).toEqual([
    { tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } },
  ]);
  // What the relay and the server were, from the capture's own record of them.
  const pids = result.trace.events
    .filter((event) => event.kind === "connected")
    .flatMap((event) => [...event.detail.matchAll(/pid (\d+)/g)].map((match) => Number(match[1])));
  expect(pids).toHaveLength(2);

  // The assertion a user writes, and what a gap breaks: the model never asked for
  // shipping_wait, and the evidence must be able to say so.
  expect(result).not.toHaveToolCall("shipping_wait");
  expect(result.trace.gaps).toEqual([]);

  await kit.close();
  expect(pids.filter(isRunning)).toEqual([]);
}, 90_000);
