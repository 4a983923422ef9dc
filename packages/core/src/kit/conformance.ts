/**
 * The conformance suite for harness adapters: runner-agnostic checks that an adapter
 * author runs against their adapter and a model provider (jest-m3 wraps them as Jest tests
 * with `describeConformance`). Each check starts its own kit and proves a promise of the
 * contract with real processes: multi-turn on one session id, per-turn wire evidence, the
 * allow-list, timeout, interrupt, a failing provider, and a clean close.
 */
import { MCPTestKit } from "./kit.js";
import { isAlive } from "../processes/managed-process.js";
import type { AgentSelectionInput } from "../agents/selection.js";
import type { StdioServer } from "../servers/spec.js";
import { M3Error } from "../errors.js";
import type { HarnessDefinition } from "../harness/contract.js";

/** What the suite needs to drive an adapter deterministically. */
export interface ConformanceOptions {
  readonly harness: HarnessDefinition;
  /** The selection to test, without `harness` (one model). */
  readonly selection: Omit<AgentSelectionInput, "harness">;
  /** An MCP server with the tool below. */
  readonly server: StdioServer;
  /** A tool of that server that the `callTool` prompt makes the agent call. */
  readonly tool: string;
  readonly prompts: {
    /** Makes the agent call `tool` exactly once, then reply. */
    readonly callTool: string;
    /** Makes the model never answer (a hanging provider). */
    readonly hang: string;
    /** Makes the model provider fail the turn (an HTTP 500, say). */
    readonly fail: string;
  };
  /** Budget of an ordinary turn in ms (default 60 000). */
  readonly turnTimeoutMs?: number;
}

/** One check of the suite. `run` throws a {@link ConformanceFailure} when the adapter breaks the contract. */
export interface ConformanceCheck {
  readonly name: string;
  run(): Promise<void>;
}

/** The adapter broke a promise of the harness contract. */
export class ConformanceFailure extends M3Error {
  override readonly code = "M3_CONFORMANCE";
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

async function withKit(
  options: ConformanceOptions,
  body: (kit: MCPTestKit) => Promise<void>,
): Promise<void> {
  const kit = new MCPTestKit({ env: {}, harnesses: [options.harness], killGraceMs: 500 });
  const seen = new Set<number>();
  const interval = setInterval(() => kit.processes.forEach((child) => seen.add(child.pid)), 20);
  try {
    await body(kit);
  } finally {
    clearInterval(interval);
    kit.processes.forEach((child) => seen.add(child.pid));
    await kit.close();
  }
  const left = [...seen].filter(isAlive);
  check(left.length === 0, `processes left after the kit closed: ${left.join(", ")}`);
}

/**
 * The checks of the conformance suite for one adapter.
 *
 * @example
 * ```ts
 * for (const check of conformanceChecks(options)) test(check.name, () => check.run());
 * ```
 */
export function conformanceChecks(options: ConformanceOptions): ConformanceCheck[] {
  const timeout = options.turnTimeoutMs ?? 60_000;
  const agentOf = (kit: MCPTestKit) => {
    const [agent] = kit.agents([{ ...options.selection, harness: options.harness.name }]);
    if (!agent) throw new ConformanceFailure("the selection expanded to no agent");
    return agent;
  };
  const describeTurn = (turn: {
    snapshot: { outcome: unknown };
    error: { message: string } | null;
  }): string =>
    `outcome ${String(turn.snapshot.outcome)}${turn.error ? ` (${turn.error.message})` : ""}`;
  return [
    {
      name: "multi-turn: two turns on one session id, each with its own wire evidence",
      run: () =>
        withKit(options, async (kit) => {
          const session = agentOf(kit).session({ server: options.server, timeout });
          await session.open();
          const first = await session.send(options.prompts.callTool);
          const second = await session.send(options.prompts.callTool);
          await session.close();
          check(first.snapshot.outcome === "completed", `turn 1: ${describeTurn(first)}`);
          check(second.snapshot.outcome === "completed", `turn 2: ${describeTurn(second)}`);
          check(
            first.snapshot.sessionId === second.snapshot.sessionId,
            `the session id changed between turns: ${first.snapshot.sessionId} then ${second.snapshot.sessionId}`,
          );
          for (const turn of [first, second]) {
            const wire = turn.toolCalls.filter(
              (call) =>
                call.tool === options.tool &&
                (call.evidence === "wire" || call.evidence === "both"),
            );
            check(
              wire.length === 1,
              `turn ${turn.snapshot.number}: ${wire.length} wire call(s) of ${options.tool}, expected 1`,
            );
          }
          check(
            session.result.snapshot.outcome === "completed",
            `session outcome ${session.result.snapshot.outcome}`,
          );
        }),
    },
    {
      name: "allow-list: a tool outside it never reaches the server",
      run: () =>
        withKit(options, async (kit) => {
          const session = agentOf(kit).session({ server: options.server, tools: [], timeout });
          await session.open();
          const turn = await session.send(options.prompts.callTool);
          await session.close();
          const reached = session.result.trace.toolCalls.filter(
            (call) => call.evidence !== "reported" && call.status !== "policy_denied",
          );
          check(
            reached.length === 0,
            `${reached.length} call(s) reached the server despite an empty allow-list`,
          );
          check(turn.snapshot.outcome !== "timed_out", `the turn timed out: ${describeTurn(turn)}`);
        }),
    },
    {
      name: "timeout: a turn past its budget ends timed_out, readable, with no process left",
      run: () =>
        withKit(options, async (kit) => {
          const session = agentOf(kit).session({ server: options.server, timeout });
          await session.open();
          const started = Date.now();
          const turn = await session.send(options.prompts.hang, { timeout: 1500 });
          check(
            turn.snapshot.outcome === "timed_out",
            `expected timed_out, got ${describeTurn(turn)}`,
          );
          check(
            Date.now() - started < 1500 + 10_000,
            "the timed-out turn took more than 10 s to wind down",
          );
          check(
            session.lifecycle === "finished",
            `the session is ${session.lifecycle}, not finished`,
          );
          check(
            session.result.snapshot.outcome === "timed_out",
            `session outcome ${session.result.snapshot.outcome}`,
          );
        }),
    },
    {
      name: "interrupt: cancel() during a turn ends it cancelled",
      run: () =>
        withKit(options, async (kit) => {
          const session = agentOf(kit).session({ server: options.server, timeout });
          await session.open();
          const running = session.send(options.prompts.hang);
          await new Promise((resolve) => setTimeout(resolve, 500));
          await session.cancel();
          const turn = await running;
          check(
            turn.snapshot.outcome === "cancelled",
            `expected cancelled, got ${describeTurn(turn)}`,
          );
          check(
            session.result.snapshot.outcome === "cancelled",
            `session outcome ${session.result.snapshot.outcome}`,
          );
        }),
    },
    {
      name: "failing provider: the turn fails and the session stays usable",
      run: () =>
        withKit(options, async (kit) => {
          const session = agentOf(kit).session({ server: options.server, timeout });
          await session.open();
          const failed = await session.send(options.prompts.fail);
          check(
            failed.snapshot.outcome === "failed",
            `expected failed, got ${describeTurn(failed)}`,
          );
          check(
            failed.error !== null && failed.error.message !== "",
            "the failed turn carries no error message",
          );
          const next = await session.send(options.prompts.callTool);
          check(
            next.snapshot.outcome === "completed",
            `the turn after the failure: ${describeTurn(next)}`,
          );
          await session.close();
        }),
    },
  ];
}
