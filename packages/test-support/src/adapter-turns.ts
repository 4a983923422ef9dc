/**
 * An adapter's own session tests (a HarnessSession opened by hand, turns run inside the
 * capture's turn windows): the scripted model's script they share and what must hold of its
 * two quote turns (reported by the agent, seen on the wire, logged by the server).
 */
import { join } from "node:path";
import type { StdioServer, WireCapture } from "@jest-m3/core";
import type {
  AdapterTurn,
  HarnessDefinition,
  HarnessSession,
  SelectionSpec,
} from "@jest-m3/core/harness";
import { correlateTurn } from "@jest-m3/core/testing";
import type { Rule, Script, ScriptedModel } from "@jest-m3/scripted-model";
import { runTurn, testLaunch, turnRequest } from "./launch";
import { callRule } from "./rules";
import type { PerTest } from "./per-test";
import { callLog, shippingServer } from "./servers";
import { waitFor } from "./waits";

/** A rule for "quote N kg to Z": one shipping_quote with those arguments, then `reply`. */
export function quoteKgRule(reply = "Shipping costs {{result.amount}} {{result.currency}}."): Rule {
  return {
    name: "quote",
    when: { user: /quote (\d+(?:\.\d+)?) kg to (\w+)/i },
    steps: [
      {
        call: "shipping:shipping_quote",
        args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
      },
      { reply },
    ],
  };
}

/**
 * The rule "quote" most agent tests script: a prompt containing `user` (default "quote") gets
 * one shipping_quote of 2 kg to "local" on the server `shipping`, then `reply` (a template).
 */
export function quoteRule(reply = "Quoted.", user = "quote"): Rule {
  return callRule(user, "shipping:shipping_quote", { weight_kg: 2, zone: "local" }, reply, "quote");
}

/**
 * "quote N kg to Z" (one shipping_quote, then "Shipping costs {amount} {currency}."),
 * "fail" (HTTP 401 "bad key") and "hang".
 */
export const ADAPTER_SCRIPT: Script = {
  rules: [
    quoteKgRule(),
    { name: "unauthorized", when: { user: "fail" }, steps: [{ http: 401, message: "bad key" }] },
    { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
  ],
};

/** The prompts of {@link expectQuoteTurns}' two turns, in order. */
export const QUOTE_PROMPTS = ["Please quote 2 kg to local.", "Please quote 3 kg to regional."];

/**
 * What must hold of the two turns {@link QUOTE_PROMPTS} sent as `turn-1` and `turn-2`
 * under {@link ADAPTER_SCRIPT}: both completed with the script's replies; each reported one
 * successful shipping_quote (id matching `callId`) with its arguments and structured result;
 * the wire saw exactly that call in that turn; and the server's log `log` holds the two calls.
 */
export function expectQuoteTurns(
  turns: readonly [AdapterTurn, AdapterTurn],
  capture: WireCapture,
  log: string,
  callId: unknown,
): void {
  const [first, second] = turns;
  expect([first.outcome, first.error]).toEqual(["completed", null]);
  expect([second.outcome, second.error]).toEqual(["completed", null]);
  expect(first.response).toEqual({ text: "Shipping costs 9 USD." });
  expect(second.response).toEqual({ text: "Shipping costs 15.5 USD." });
  const expected = [
    { weight_kg: 2, zone: "local", amount: 9 },
    { weight_kg: 3, zone: "regional", amount: 15.5 },
  ];
  expected.forEach(({ weight_kg, zone, amount }, index) => {
    expect(turns[index]!.toolCalls).toEqual([
      expect.objectContaining({
        id: callId,
        server: "shipping",
        tool: "shipping_quote",
        arguments: { weight_kg, zone },
        status: "success",
        result: expect.objectContaining({ structuredContent: { amount, currency: "USD" } }),
      }),
    ]);
    const wire = capture.trace.toolCalls.filter((call) => call.turnId === `turn-${index + 1}`);
    expect(
      wire.map((call) => ({
        server: call.server,
        tool: call.tool,
        args: call.arguments,
        status: call.status,
      })),
    ).toEqual([
      { server: "shipping", tool: "shipping_quote", args: { weight_kg, zone }, status: "success" },
    ]);
  });
  expect(callLog(log)).toEqual(
    expected.map(({ weight_kg, zone }) => ({
      tool: "shipping_quote",
      arguments: { weight_kg, zone },
    })),
  );
}

/**
 * Under {@link ADAPTER_SCRIPT}: turn 1 ("This request will fail.") fails with the agent's
 * words for the provider's 401 (`error`), no call, the session still alive; turn 2 in the
 * same session quotes, the one call in the server's log `log`. Returns the failed turn.
 */
export async function expectFailureThenRecovery(
  session: HarnessSession,
  capture: WireCapture,
  log: string,
  error: RegExp,
): Promise<AdapterTurn> {
  const failed = await runTurn(session, capture, "turn-1", "This request will fail.");
  expect(failed.outcome).toBe("failed");
  expect(failed.error).toMatch(error);
  expect(failed.toolCalls).toEqual([]);
  expect(session.health()).toEqual({ alive: true });
  const recovered = await runTurn(session, capture, "turn-2", QUOTE_PROMPTS[0]!);
  expect([recovered.outcome, recovered.error]).toEqual(["completed", null]);
  expect(recovered.response?.text).toBe("Shipping costs 9 USD.");
  expect(recovered.toolCalls.map((call) => call.status)).toEqual(["success"]);
  expect(callLog(log)).toHaveLength(1);
  return failed;
}

/**
 * Under {@link ADAPTER_SCRIPT}: sends "Please hang." as `turn-1`, aborts it once the model
 * holds the request, and asserts the turn came back interrupted within 2 s, the session
 * alive. Returns the interrupted turn (its events are the agent's own).
 */
export async function expectHangInterrupted(
  session: HarnessSession,
  capture: WireCapture,
  model: ScriptedModel,
): Promise<AdapterTurn> {
  const { request, abort } = turnRequest("Please hang.", "turn-1");
  capture.beginTurn("turn-1");
  const sent = session.send(request);
  await waitFor(() => model.journal.entries.length > 0, "the model request");
  const abortedAt = Date.now();
  abort.abort("timeout");
  const interrupted = await sent;
  await capture.endTurn();
  expect(Date.now() - abortedAt).toBeLessThan(2000);
  expect(interrupted.outcome).toBe("interrupted");
  expect(session.health().alive).toBe(true);
  return interrupted;
}

/**
 * Under {@link ADAPTER_SCRIPT}: kills the agent (`pid`) with SIGKILL while the model holds
 * "Please hang."; the turn fails saying `agent` exited during it, with the stderr tail health
 * reports; health says dead; the next turn fails saying `agent` is not running.
 */
export async function expectKilledMidAdapterTurn(
  session: HarnessSession,
  capture: WireCapture,
  model: ScriptedModel,
  pid: number,
  agent: string,
): Promise<void> {
  capture.beginTurn("turn-1");
  const sent = session.send(turnRequest("Please hang.", "turn-1").request);
  await waitFor(() => model.journal.entries.length > 0, "the model request");
  process.kill(pid, "SIGKILL");
  const dead = await sent;
  await capture.endTurn();
  expect(dead.outcome).toBe("failed");
  expect(dead.error?.startsWith(`${agent} exited (signal SIGKILL) during the turn`)).toBe(true);
  const health = session.health();
  expect(health).toEqual({ alive: false, exit: "signal SIGKILL", stderrTail: expect.any(String) });
  if (health.stderrTail) expect(dead.error).toContain(health.stderrTail);
  const after = await session.send(turnRequest(QUOTE_PROMPTS[0]!, "turn-2").request);
  expect(after.outcome).toBe("failed");
  expect(after.error).toContain(`${agent} is not running (signal SIGKILL)`);
}

/**
 * Opens a session of `harness` (selection `selection`, allow-list `tools`) by hand on the
 * shipping server `server(log)` (default: the example's, logging to a new file `log`); the
 * capture and the agent's pid are added to the test's, so they must be gone after it.
 */
export async function openOnShipping<S extends HarnessSession = HarnessSession>(
  t: PerTest,
  harness: HarnessDefinition,
  selection: SelectionSpec,
  tools?: readonly string[],
  server: (log: string) => StdioServer = (log) => shippingServer(log),
) {
  const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
  const { launch, capture, events } = await testLaunch(t.kit, selection, [server(log)], { tools });
  t.captures.push(capture);
  const session = (await harness.open(launch)) as S;
  t.pids.push((session as { pid?: number }).pid as number);
  return { log, capture, events, session };
}

/**
 * `turn` made one successful call of `server`'s `tool`, reported by the agent, and the
 * capture's wire call of turn `turnId` pairs with it (evidence `both`): a tool name the
 * agent rewrote was read back to the server's own names.
 */
export function expectOneCallBothWays(
  turn: Pick<AdapterTurn, "toolCalls">,
  capture: WireCapture,
  turnId: string,
  server: string,
  tool: string,
): void {
  expect(turn.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
    [server, tool, "success"],
  ]);
  let reported = 0;
  const records = correlateTurn(
    capture.trace.toolCalls,
    turn.toolCalls,
    turnId,
    () => `r${++reported}`,
  );
  expect(records.map((call) => [call.server, call.tool, call.evidence])).toEqual([
    [server, tool, "both"],
  ]);
}
