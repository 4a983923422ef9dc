/**
 * Checks every agent's session tests make the same way whatever the agent: an MCP server
 * that dies at start is visible, the agent killed mid-turn fails the turn and the session,
 * a launch refused before anything spawns, and what the model was offered (from the
 * scripted model's journal, the ground truth of what the agent sent).
 */
import { join } from "node:path";
import {
  ExecutionOutcome,
  TurnOutcome,
  type AgentSelectionInput,
  type AgentSession,
  type MCPTestKit,
  type ServerSpec,
  type TurnResult,
} from "@jest-m3/core";
import type { JsonObject, Rule, ScriptedModel } from "@jest-m3/scripted-model";
import { isRunning } from "./processes";
import { callLog, ledgerServer, shippingServer } from "./servers";
import { waitFor } from "./waits";
import { callRule } from "./rules";

/**
 * A rule for prompts with "ledger": the model calls each of `tools` on the ledger server in
 * turn (record_entry with the text "parcel 7", the others without arguments), then replies
 * `reply`.
 */
export function ledgerRule(
  tools: readonly ("record_entry" | "erase_ledger" | "read_ledger")[],
  reply: string,
): Rule {
  const calls = tools.map((tool) => {
    const args: JsonObject = tool === "record_entry" ? { text: "parcel 7" } : {};
    return { call: `ledger:${tool}`, args };
  });
  return { name: "ledger", when: { user: "ledger" }, steps: [...calls, { reply }] };
}

/** A rule for prompts with "erase": the model calls ledger:erase_ledger, then replies. */
export const ERASE_RULE: Rule = callRule("erase", "ledger:erase_ledger", {}, "Erased, I hope.");

/**
 * A rule for `prompt`: one shipping_quote on the server `shipping` and one on `local` (the
 * planted-secret scan's two servers), then a reply.
 */
export function bothQuotesRule(prompt = "both quotes", reply = "Both quotes are ready."): Rule {
  return {
    name: "both",
    when: { user: prompt },
    steps: [
      { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
      { call: "local:shipping_quote", args: { weight_kg: 3, zone: "local" } },
      { reply },
    ],
  };
}

/** The tools (`server:tool`) offered with the model's last request that offered any. */
export function lastOffered(model: ScriptedModel): readonly string[] | undefined {
  return model.journal.entries
    .filter((entry) => (entry.conversation?.offeredTools.length ?? 0) > 0)
    .at(-1)?.conversation?.offeredTools;
}

/** What {@link serverStartFailure} saw. */
export interface ServerStartFailure {
  /** What open() rejected with; undefined when it resolved (the agent went on without it). */
  readonly opened: unknown;
  /** The session (closed). */
  readonly session: AgentSession;
  /** open()'s error message and the trace's events, as one JSON text. */
  readonly text: string;
}

/**
 * Opens a session of `agent` on the ledger server started with `--exit-at-start` (it dies
 * before the handshake, saying "cannot open /nonexistent/ledger.db" on stderr), runs
 * `whenOpened` if open() resolved, closes it, and asserts the failure is visible: open()'s
 * error or the trace names the server and keeps its words, and the server logged no call.
 */
export async function serverStartFailure(
  kit: MCPTestKit,
  agent: AgentSelectionInput,
  whenOpened?: (session: AgentSession) => Promise<void>,
): Promise<ServerStartFailure> {
  const log = join(await kit.tempDir("m3-log-"), "ledger.jsonl");
  const [selected] = kit.agents([agent]);
  const session = selected!.session({
    server: ledgerServer(log, ["--exit-at-start"]),
    timeout: 60_000,
  });
  const opened = await session.open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  try {
    if (opened === undefined && whenOpened) await whenOpened(session);
  } finally {
    await session.close();
  }
  const text = JSON.stringify([
    opened instanceof Error ? opened.message : null,
    session.result.trace.events,
  ]);
  expect(text).toMatch(/ledger/);
  expect(text).toContain("cannot open /nonexistent/ledger.db");
  expect(callLog(log)).toEqual([]);
  return { opened, session, text };
}

/**
 * Opens a session of `agent` on the shipping server, sends "hang" (the model needs
 * {@link HANG_RULE}), kills the kit's process whose label contains `label` (the agent) with
 * SIGKILL once the model holds the request, and asserts the turn and the session failed, the
 * turn's error saying the agent exited.
 */
export async function expectKilledMidTurn(
  kit: MCPTestKit,
  model: ScriptedModel,
  agent: AgentSelectionInput,
  label: string,
): Promise<void> {
  const [selected] = kit.agents([agent]);
  const session = selected!.session({
    server: shippingServer(join(await kit.tempDir("m3-log-"), "shipping.jsonl")),
    timeout: 60_000,
  });
  await session.open();
  const child = kit.processes.find((entry) => entry.label.includes(label));
  expect(child).toBeDefined();
  const before = model.journal.entries.length;
  const turn = session.send("hang");
  await waitFor(() => model.journal.entries.length > before, "the hanging model request", 60_000);
  process.kill(child!.pid, "SIGKILL");
  const ended = await turn;
  await session.close();
  expect(ended.snapshot.outcome).toBe(TurnOutcome.FAILED);
  expect(ended.error?.message).toMatch(/exited/);
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
}

/**
 * Asserts `open()` is refused with an error of class `type` whose message matches `message`
 * before the kit spawned anything, and that `log` (the servers' call log) stays empty.
 * Returns the error.
 */
export async function expectRefusedBeforeStart(
  kit: MCPTestKit,
  open: () => Promise<unknown>,
  type: abstract new (...args: never[]) => Error,
  message: RegExp,
  log?: string,
): Promise<Error> {
  const spawned = jest.spyOn(kit, "spawn");
  const error = await open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toMatch(message);
  expect(spawned).not.toHaveBeenCalled();
  if (log !== undefined) expect(callLog(log)).toEqual([]);
  return error as Error;
}

/**
 * A session of `agent` on `server` whose turn ("Please hang.", the model needs
 * {@link HANG_RULE}) outlives its 1.5 s timeout: it ends within 4 s, timed_out with the
 * kit's words, the session's result timed_out, and none of the processes the kit had while
 * the session was open still running. Returns the turn (its events are the agent's).
 */
export async function expectTurnTimedOut(
  kit: MCPTestKit,
  agent: AgentSelectionInput,
  server: ServerSpec,
): Promise<TurnResult> {
  const [selected] = kit.agents([agent]);
  const session = selected!.session({ server, timeout: 60_000 });
  let turn: TurnResult;
  let pids: number[];
  {
    await using open = await session.open();
    pids = kit.processes.map((child) => child.pid);
    const startedAt = Date.now();
    turn = await open.send("Please hang.", { timeout: 1500 });
    expect(Date.now() - startedAt).toBeLessThan(4000);
  }
  expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
  expect(turn.error?.message).toMatch(/did not finish within 1500 ms/);
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
  expect(pids.filter(isRunning)).toEqual([]);
  return turn;
}

/** What {@link expectTwoSessionsOnOneWarmProcess} looks at. */
export interface WarmProcessProbes {
  /** The agent processes running now (warm or not), by pid. */
  agentPids(): number[];
  /** The agent processes the kit itself started (cold sessions'). */
  kitAgents(): readonly unknown[];
  /** Each session's timeout, in milliseconds. */
  readonly timeout: number;
  /** More checks on the agent pids while a session is open. */
  alsoWhileOpen?(pids: number[]): void;
}

/**
 * Two sessions of `selection` on the server `serverFor` gives for a call log in a temporary
 * folder of the kit, one after the other, each asked to say hello
 * (the `helloModel` rule): while each is open exactly one agent process runs, none of the
 * kit's own, and it is the same process for both and outlives each session: a warm one.
 */
export async function expectTwoSessionsOnOneWarmProcess(
  kit: MCPTestKit,
  selection: AgentSelectionInput,
  serverFor: (callLog: string) => ServerSpec,
  probes: WarmProcessProbes,
): Promise<void> {
  const server = serverFor(join(await kit.tempDir("m3-warm-default-"), "calls.jsonl"));
  const [agent] = kit.agents([selection]);
  const served: number[] = [];
  for (let round = 0; round < 2; round++) {
    const session = agent!.session({ server, timeout: probes.timeout });
    {
      await using open = await session.open();
      const pids = probes.agentPids();
      expect(pids).toHaveLength(1);
      probes.alsoWhileOpen?.(pids);
      expect(probes.kitAgents()).toEqual([]);
      served.push(pids[0]!);
      const turn = await open.send("Please say hello.");
      expect(turn.response?.text).toBe("Hello.");
    }
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
    expect(isRunning(served.at(-1)!)).toBe(true); // warm: it waits for the next session
  }
  expect(served[1]).toBe(served[0]);
}

/** How {@link expectOneColdSession} sees the agent's processes. */
export interface ColdProcessProbes {
  /** The agent processes running now (warm or not), by pid. */
  agentPids(): number[];
  /** The agent processes the kit itself started (cold sessions'). */
  kitAgents(): readonly { readonly pid: number }[];
  /** The session's timeout, in milliseconds. */
  readonly timeout: number;
}

/**
 * A session of `selection` on the server `serverFor` gives for a call log in a temporary
 * folder of the kit, asked to say hello (the `helloModel` rule): while it
 * is open exactly one agent process runs, the kit's own, and `whileOpen` holds after the
 * reply; after close that process is gone and no agent process runs: a cold session.
 */
export async function expectOneColdSession(
  kit: MCPTestKit,
  selection: AgentSelectionInput,
  serverFor: (callLog: string) => ServerSpec,
  probes: ColdProcessProbes,
  whileOpen?: () => void,
): Promise<void> {
  const server = serverFor(join(await kit.tempDir("m3-warm-default-"), "calls.jsonl"));
  const [agent] = kit.agents([selection]);
  const session = agent!.session({ server, timeout: probes.timeout });
  let pid: number;
  {
    await using open = await session.open();
    const own = probes.kitAgents();
    expect(own).toHaveLength(1);
    pid = own[0]!.pid;
    expect(probes.agentPids()).toEqual([pid]);
    const turn = await open.send("Please say hello.");
    expect(turn.response?.text).toBe("Hello.");
    whileOpen?.();
  }
  expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(isRunning(pid)).toBe(false);
  expect(probes.agentPids()).toEqual([]);
}
