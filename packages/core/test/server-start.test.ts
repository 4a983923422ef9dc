// Servers ready before the first turn are part of the contract, whatever the agent makes of
// a server that died: an adapter that opens its session although its MCP server exited at
// start (as Gemini CLI and OpenCode do) gets a failed open() naming the server, with the
// server's stderr. A server that started and answered opens as before.
import { join } from "node:path";
import { HarnessStartError, MCPTestKit } from "@jest-m3/core";
import { defineHarness, type HarnessLaunch, type HarnessSession } from "@jest-m3/core/harness";
import { testHarness } from "@jest-m3/core/testing";
import { shippingServer } from "@jest-m3/test-support";
import { INITIALIZE } from "@jest-m3/test-support";
import { faultServer, spawnCapturedServer } from "./support/servers";

/** A session that has nothing to say: the adapter under test only opens. */
function idleSession(): HarnessSession {
  return {
    id: "idle",
    send: () =>
      Promise.resolve({
        outcome: "completed",
        response: { text: "idle" },
        error: null,
        toolCalls: [],
        events: [],
      }),
    health: () => ({ alive: true }),
    close: () => Promise.resolve(),
  };
}

/** Starts the captured server the way an agent would, and says "initialize" to it. */
function startServer(launch: HarnessLaunch) {
  const child = spawnCapturedServer(launch);
  child.child.stdin.write(`${INITIALIZE}\n`);
  return child;
}

/** An agent that goes on without its server: it opens once the server exited. */
const goesOn = defineHarness({
  name: "goes-on",
  readiness: testHarness().readiness,
  async open(launch) {
    await startServer(launch).exited;
    return idleSession();
  },
});

/** An agent that waits until its server answered `initialize`. */
const waits = defineHarness({
  name: "waits",
  readiness: testHarness().readiness,
  async open(launch) {
    const child = startServer(launch);
    await new Promise<void>((resolve) => child.child.stdout.once("data", () => resolve()));
    return idleSession();
  },
});

test.each(["goes-on"])(
  "%s: a server that exits at start fails open(), naming it, with its stderr",
  async (harness) => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [goesOn] });
    const [agent] = kit.agents([{ harness, models: ["m"] }]);
    const session = agent!.session({ server: faultServer("--exit-at-start", "3") });
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessStartError);
    const message = (error as Error).message;
    expect(message).toContain(
      `Harness "${harness}" could not open a session: MCP server "faulty" failed to start: the server process exited (code 3).`,
    );
    expect(message).toContain('--- server "faulty" stderr (last lines) ---');
    expect(message).toContain("fatal: cannot open database /nonexistent/db.sqlite");
    expect(session.result.snapshot.outcome).toBe("failed");
    expect(session.result.error?.code).toBe("M3_HARNESS_START");
  },
);

test("a server that answered opens the session as before", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [waits] });
  const [agent] = kit.agents([{ harness: "waits", models: ["m"] }]);
  const dir = await kit.tempDir("m3-start-");
  const session = agent!.session({ server: shippingServer(join(dir, "calls.jsonl")) });
  await session.open();
  const turn = await session.send("hello");
  await session.close();
  expect(turn.snapshot.outcome).toBe("completed");
  expect(session.result.snapshot.outcome).toBe("completed");
});
