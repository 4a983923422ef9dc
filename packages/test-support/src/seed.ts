/**
 * The project's seed as the harness packages run it on their agent: two turns on one
 * session, each asking for one shipping_quote, and what must hold of them (one successful
 * call per turn on the shipping server, reported by the agent and seen on the wire, and the
 * server's own log holding exactly those two calls).
 */
import { join } from "node:path";
import {
  ExecutionOutcome,
  TurnOutcome,
  type AgentSelectionInput,
  type AgentSession,
  type MCPTestKit,
  type ExecutionResult,
  type TurnResult,
} from "@jest-m3/core";
import type { Rule, Script, ScriptedUsage } from "@jest-m3/scripted-model";
// Types only (erased): jest-m3's matchers on the global expect, which the preset registers.
import type {} from "jest-m3";
import { REPO_ROOT } from "./paths";
import { callRule } from "./rules";
import { isRunning, processTree } from "./processes";
import { callLog, shippingServer } from "./servers";

/** The seed's two turns: the prompt and the arguments its shipping_quote call must carry. */
export const SEED_TURNS = [
  {
    prompt: "Call shipping_quote once for weight_kg 2 in zone local.",
    args: { weight_kg: 2, zone: "local" },
  },
  {
    prompt: "Call shipping_quote once for weight_kg 3 in zone regional.",
    args: { weight_kg: 3, zone: "regional" },
  },
] as const;

/** What {@link seedRule} may add to its rule. */
export interface SeedRuleOptions {
  /** The rule's name; default "quote". */
  readonly name?: string;
  /** Only on this turn of the conversation. */
  readonly turn?: number;
  /** The usage the call's answer reports. */
  readonly callUsage?: ScriptedUsage;
  /** The usage the reply reports. */
  readonly replyUsage?: ScriptedUsage;
}

/**
 * The scripted model's rule for the seed's prompts ("… weight_kg N in zone Z …"): one
 * shipping_quote with those arguments, then `reply`.
 */
export function seedRule(
  reply = "The quote is {{result.amount}} {{result.currency}}.",
  options: SeedRuleOptions = {},
): Rule {
  const { name = "quote", turn, callUsage, replyUsage } = options;
  return {
    name,
    when: { user: /weight_kg (\d+) in zone (\w+)/, ...(turn !== undefined ? { turn } : {}) },
    steps: [
      {
        call: "shipping:shipping_quote",
        args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
        ...(callUsage ? { usage: callUsage } : {}),
      },
      { reply, ...(replyUsage ? { usage: replyUsage } : {}) },
    ],
  };
}

/**
 * The script of the warm-session tests, which try to see across two sessions of one process:
 * the seed's quote (answered with `reply`), "Record the word W" (one `shipping:record_entry`
 * of W, then "Done.") and "Quote through the other session" (a call of a tool the agent must
 * not offer, `toolNotOffered: "expected"`). `anchored` matches the last two only at the start
 * of the prompt.
 */
export function warmIsolationScript(reply: string, anchored = false): Script {
  const start = anchored ? "^" : "";
  return {
    rules: [
      seedRule(reply),
      callRule(
        new RegExp(`${start}Record the word (\\w+)`),
        "shipping:record_entry",
        { text: "{{match.1}}" },
        "Done.",
        "record",
      ),
      {
        name: "steal",
        when: { user: new RegExp(`${start}Quote through the other session`) },
        toolNotOffered: "expected",
        steps: [
          { call: "shipping:shipping_quote", args: { weight_kg: 9, zone: "local" } },
          { reply: "Quoted." },
        ],
      },
    ],
  };
}

/**
 * What the warm-isolation test ends on, of sessions A and B it ran on one process (their
 * servers logging to `a.jsonl` and `b.jsonl` in `dir`): both completed, A's server got
 * only the quote (2 kg to local), B's only the words B recorded, and B's trace has only
 * those record_entry calls.
 */
export function expectSessionsApart(
  a: AgentSession,
  b: AgentSession,
  dir: string,
  words: readonly string[],
): void {
  expect(a.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(b.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
  expect(callLog(join(dir, "a.jsonl")).map((call) => call.arguments)).toEqual([
    { weight_kg: 2, zone: "local" },
  ]);
  expect(callLog(join(dir, "b.jsonl")).map((call) => call.arguments)).toEqual(
    words.map((text) => ({ text })),
  );
  expect(b.result.trace.toolCalls.map((call) => call.tool)).toEqual(
    words.map(() => "record_entry"),
  );
}

/** A rule that never answers the prompt "hang" (a turn that outlives its timeout). */
export const HANG_RULE: Rule = { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] };

/** What {@link runSeed} gives back. */
export interface SeedRun {
  readonly first: TurnResult;
  readonly second: TurnResult;
  readonly result: ExecutionResult;
  /** The processes `pidsWhileOpen` named while the session was open. */
  readonly pids: number[];
}

/**
 * Opens `session`, sends the seed's two turns (each with `timeout` when given), reads
 * `pidsWhileOpen()` before it closes, and returns the turns and the session's result.
 */
export async function runSeed(
  session: AgentSession,
  pidsWhileOpen: () => number[],
  timeout?: number,
): Promise<SeedRun> {
  const options = timeout !== undefined ? { timeout } : {};
  let first: TurnResult;
  let second: TurnResult;
  let pids: number[];
  {
    await using open = await session.open();
    first = await open.send(SEED_TURNS[0].prompt, options);
    second = await open.send(SEED_TURNS[1].prompt, options);
    pids = pidsWhileOpen();
  }
  return { first, second, result: session.result, pids };
}

/**
 * What must hold of a seed run: the session and both turns completed on one session id,
 * one successful shipping_quote per turn on the shipping server with the seed's arguments,
 * reported by the agent and seen on the wire (evidence "both"), and `log` (the shipping
 * server's call log) holding exactly those two calls.
 */
export function expectSeed(run: SeedRun, log: string): void {
  const { first, second, result } = run;
  expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(first.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(second.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(first.snapshot.sessionId).toBeTruthy();
  expect(first.snapshot.sessionId).toBe(second.snapshot.sessionId);
  for (const turn of [first, second]) {
    expect(result).toHaveToolCall("shipping_quote", {
      turn,
      server: "shipping",
      status: "success",
      count: 1,
    });
  }
  [first, second].forEach((turn, index) => {
    expect(
      turn.toolCalls.map((call) => ({
        server: call.server,
        tool: call.tool,
        arguments: call.arguments,
        status: call.status,
        evidence: call.evidence,
        turnId: call.turnId,
      })),
    ).toEqual([
      {
        server: "shipping",
        tool: "shipping_quote",
        arguments: SEED_TURNS[index]!.args,
        status: "success",
        evidence: "both",
        turnId: turn.snapshot.turnId,
      },
    ]);
  });
  // Ground truth: the server's own log.
  expect(callLog(log).map((entry) => [entry.tool, entry.arguments])).toEqual(
    SEED_TURNS.map((turn) => ["shipping_quote", turn.args]),
  );
}

/**
 * The seed on `agent` as a test runs it: a session on the shipping server (started in
 * examples/shipping, logging its calls) with shipping_quote allowed, its two turns, what
 * {@link expectSeed} checks, and nothing of the session's process tree left running after
 * it closed. Returns the run for the agent's own checks (its version, its replies).
 */
export async function expectSeedOn(
  kit: MCPTestKit,
  agent: AgentSelectionInput,
  timeout = 120_000,
): Promise<SeedRun> {
  const log = join(await kit.tempDir("m3-log-"), "shipping.jsonl");
  const [selected] = kit.agents([agent]);
  const session = selected!.session({
    server: { ...shippingServer(log), cwd: join(REPO_ROOT, "examples/shipping") },
    tools: ["shipping:shipping_quote"],
    timeout,
  });
  const run = await runSeed(session, () => processTree(kit), timeout);
  expectSeed(run, log);
  expect(run.pids.filter(isRunning)).toEqual([]);
  return run;
}
