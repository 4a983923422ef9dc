// A harness that fails to start because its MCP server died gets the server's stderr (as
// the relay recorded it) added to its error, and its own stderr tail stays in the message
// once: no line of evidence lost, none printed twice.
import { HarnessStartError, MCPTestKit } from "@jest-m3/core";
import { defineHarness } from "@jest-m3/core/harness";
import { testHarness } from "@jest-m3/core/testing";
import { faultServer, spawnCapturedServer } from "./support/servers";

const HARNESS_TAIL = "agent: MCP server faulty failed to start\nagent: giving up";

/** A harness that starts the captured server itself, sees it die, and gives up. */
const giveUp = defineHarness({
  name: "give-up",
  readiness: testHarness().readiness,
  async open(launch) {
    const child = spawnCapturedServer(launch);
    await child.exited;
    // The relay's last stderr events travel on its channel; give them a moment to land.
    await new Promise((resolve) => setTimeout(resolve, 300));
    throw new HarnessStartError("give-up", "its MCP server exited during startup.", {
      stderrTail: HARNESS_TAIL,
    });
  },
});

const count = (text: string, part: string): number => text.split(part).length - 1;

test("a harness start failure shows the server's stderr and its own tail, each once", async () => {
  await using kit = new MCPTestKit({ env: {}, harnesses: [giveUp] });
  const [agent] = kit.agents([{ harness: "give-up", models: ["m"] }]);
  const session = agent!.session({ server: faultServer("--exit-at-start", "3") });
  const error = (await session.open().catch((caught: unknown) => caught)) as HarnessStartError;

  expect(error).toBeInstanceOf(HarnessStartError);
  expect(error.stderrTail).toBe(HARNESS_TAIL);
  expect(count(error.message, "agent: giving up")).toBe(1);
  expect(count(error.message, "--- stderr (last lines) ---")).toBe(1);
  expect(count(error.message, "fatal: cannot open database /nonexistent/db.sqlite")).toBe(1);
  expect(error.message).toBe(
    'Harness "give-up" could not open a session: its MCP server exited during startup.\n' +
      '--- server "faulty" stderr (last lines) ---\n' +
      "fault-server: starting\nfatal: cannot open database /nonexistent/db.sqlite\n" +
      "--- stderr (last lines) ---\n" +
      HARNESS_TAIL,
  );
  // The session's result carries the same words.
  expect(session.result.error?.message).toBe(error.message);
  expect(session.result.snapshot.outcome).toBe("failed");
});
