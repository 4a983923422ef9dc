/**
 * ACP-level faults, on a small scripted ACP agent (fixtures/fake-agent.mjs) driven through
 * the kit's agent sessions as `harness: "acp"`, the kind for any ACP agent: a model picked
 * through the agent's config option, a malformed message, a prompt that never ends, an
 * agent that exits mid-turn, permission requests inside and outside the allow-list, and
 * requests the adapter does not serve.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, TurnOutcome } from "jest-m3";
import { isRunning, shippingServer } from "./support/acp";

jest.setTimeout(60_000);

const FAKE_AGENT = join(__dirname, "fixtures/fake-agent.mjs");

let kit: MCPTestKit;
let agentLog: string;
let serverLog: string;
beforeEach(async () => {
  kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const dir = await kit.tempDir("m3-log-");
  agentLog = join(dir, "agent.jsonl");
  serverLog = join(dir, "calls.jsonl");
});
afterEach(async () => {
  const pids = kit.processes.map((child) => child.pid);
  await kit.close();
  expect(pids.filter(isRunning)).toEqual([]);
});

/** The methods the fake agent received, in order. */
function received(): string[] {
  return readFileSync(agentLog, "utf8")
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { method?: string }).method ?? "(answer)");
}

function fakeAgent(model = "fake-b", mode = "ok") {
  const [agent] = kit.agents([
    {
      harness: "acp",
      models: [model],
      credentialEnv: {},
      options: {
        command: process.execPath,
        args: [FAKE_AGENT, "--mode", mode],
        env: { FAKE_AGENT_LOG: agentLog },
        startupTimeoutMs: 5000,
      },
    },
  ]);
  return agent!;
}

test("any ACP agent by command: initialize, session/new, the model picked through its config option", async () => {
  const session = fakeAgent().session({ server: shippingServer(serverLog) });
  {
    await using open = await session.open();
    const turn = await open.send("hello");
    expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    expect(turn.response?.text).toBe("Hello from fake-b.");
    expect(turn.snapshot.sessionId).toBe("fake-session-1");
  }
  // The readiness probe's initialize may come first (it runs once per process).
  expect(received().slice(-4)).toEqual([
    "initialize",
    "session/new",
    "session/set_config_option",
    "session/prompt",
  ]);
  expect(session.result.trace.events).toContainEqual(
    expect.objectContaining({
      kind: "harness",
      detail: "ACP agent switched to fake-b (session/set_config_option model)",
    }),
  );
});

test("a model the agent does not offer: the start fails with the models it offers", async () => {
  const session = fakeAgent("gpt-nope").session({ server: shippingServer(serverLog) });
  await expect(session.open()).rejects.toThrow(
    /the model "gpt-nope" is not one ACP agent offers \("fake-a", "fake-b"\)/,
  );
});

test("a malformed message mid-turn fails the turn, quoting the line; the session stays usable", async () => {
  const session = fakeAgent().session({ server: shippingServer(serverLog) });
  await using open = await session.open();
  const broken = await open.send("garbage", { timeout: 10_000 });
  expect(broken.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(broken.error?.message).toMatch(
    /ACP agent broke the protocol: it wrote a line that is not an ACP message: "this is not json"/,
  );
  const next = await open.send("hello");
  expect(next.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
});

test("a prompt that never ends: the timeout sends session/cancel, the turn ends timed_out", async () => {
  const session = fakeAgent().session({ server: shippingServer(serverLog) });
  let turn;
  {
    await using open = await session.open();
    const started = Date.now();
    turn = await open.send("forever", { timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(6000);
  }
  expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
  expect(received()).toContain("session/cancel");
});

test("a cancel the agent confirms ends the turn cancelled", async () => {
  const session = fakeAgent().session({ server: shippingServer(serverLog) });
  await session.open();
  const running = session.send("wait");
  await new Promise((resolve) => setTimeout(resolve, 300));
  await session.cancel();
  const turn = await running;
  expect(turn.snapshot.outcome).toBe(TurnOutcome.CANCELLED);
  expect(received()).toContain("session/cancel");
});

test("the agent exits mid-turn: the turn and the session fail with its stderr", async () => {
  const session = fakeAgent().session({ server: shippingServer(serverLog) });
  await session.open();
  const turn = await session.send("exit");
  await session.close();
  expect(turn.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(turn.error?.message).toMatch(/ACP agent exited \(code 3\) during the turn/);
  expect(turn.error?.message).toMatch(/lost its mind mid-turn/);
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
});

test("permission requests: refused outside the allow-list, allowed inside, each recorded", async () => {
  const session = fakeAgent().session({
    server: shippingServer(serverLog),
    tools: ["shipping:shipping_quote"],
  });
  let refused, allowed;
  {
    await using open = await session.open();
    refused = await open.send('ask shipping:erase_everything {"really":true}');
    allowed = await open.send('ask shipping:shipping_quote {"weight_kg":2,"zone":"local"}');
  }
  expect(refused.response?.text).toBe("Not allowed.");
  expect(
    refused.toolCalls.map((call) => [call.server, call.tool, call.arguments, call.status]),
  ).toEqual([["shipping", "erase_everything", { really: true }, "policy_denied"]]);
  expect(allowed.response?.text).toBe("Done.");
  expect(allowed.toolCalls.map((call) => [call.tool, call.arguments, call.status])).toEqual([
    ["shipping_quote", { weight_kg: 2, zone: "local" }, "success"],
  ]);
  const approvals = session.result.trace.events
    .filter((event) => event.kind === "approval")
    .map((event) => event.detail);
  expect(approvals).toEqual([
    "declined shipping:erase_everything (not in the session's allow-list)",
    "accepted shipping:shipping_quote (in the session's allow-list)",
  ]);
});

test("requests the adapter does not serve (files, terminals) are refused and recorded", async () => {
  const session = fakeAgent().session({ server: shippingServer(serverLog) });
  let turn;
  {
    await using open = await session.open();
    turn = await open.send("fs");
  }
  expect(turn.response?.text).toMatch(/^fs answered error -32\d{3}$/);
  expect(session.result.trace.events).toContainEqual(
    expect.objectContaining({
      kind: "harness",
      detail: "refused fs/read_text_file: the harness serves no files, terminals or questions",
    }),
  );
});
