import { resultError, stderrSection, toResultError, type ResultError } from "../errors.js";
import type { AdapterTurn, HarnessSession } from "../harness/contract.js";
import { ExecutionOutcome, type TurnOutcome } from "../evidence/outcomes.js";

/** How long a timed-out or cancelled turn gets to wind down after the interrupt. */
const INTERRUPT_GRACE_MS = 2_000;

function grace(ms: number): Promise<"grace"> {
  return new Promise((resolve) => setTimeout(() => resolve("grace"), ms).unref());
}

/** How one turn ended, before its evidence is put together. */
export interface TurnEnding {
  readonly outcome: TurnOutcome;
  /** What the adapter gave back, if it answered (even late, after an interrupt). */
  readonly turn: AdapterTurn | undefined;
  readonly error: ResultError | null;
  /** Set when the turn ends the session too (a timeout, a cancel, a dead harness). */
  readonly endSession: ExecutionOutcome | null;
}

/** One turn in flight: its number, a way to cancel it, and when it is done. */
export interface RunningTurn {
  readonly number: number;
  cancel(): void;
  readonly done: Promise<void>;
}

/** What the adapter's turn resolved to, or how it threw. */
type Settled = { kind: "turn"; turn: AdapterTurn } | { kind: "error"; error: unknown };

function harnessDied(harness: HarnessSession, why: string | null): ResultError {
  const health = harness.health();
  const exit = health.exit ?? "exited";
  return resultError(
    "M3_HARNESS_DIED",
    `The harness died during the turn (${exit})${why ? `: ${why}` : ""}` +
      stderrSection(health.stderrTail, "harness"),
    { details: { exit, ...(health.stderrTail ? { stderrTail: health.stderrTail } : {}) } },
  );
}

/**
 * Runs one adapter turn against its budget: races the adapter, the timeout and a cancel;
 * on timeout or cancel interrupts the harness (bounded, so an adapter that never answers
 * cannot hold the session) and keeps whatever the adapter still returns; tells a failed
 * turn from a dead harness.
 */
export async function runTurn(
  harness: HarnessSession,
  request: { readonly text: string; readonly turnId: string; readonly timeoutMs: number },
  cancelled: Promise<"cancelled">,
): Promise<TurnEnding> {
  const controller = new AbortController();
  // Through a promise, so an adapter that throws synchronously cannot wedge the session.
  const adapter: Promise<Settled> = Promise.resolve()
    .then(() => harness.send({ ...request, signal: controller.signal }))
    .then(
      (turn): Settled => ({ kind: "turn", turn }),
      (error: unknown): Settled => ({ kind: "error", error }),
    );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">(
    (resolve) => (timer = setTimeout(() => resolve("timeout"), request.timeoutMs)),
  );
  const first = await Promise.race([adapter, timedOut, cancelled]);
  clearTimeout(timer);

  if (first === "timeout" || first === "cancelled") {
    controller.abort(first);
    await Promise.race([
      Promise.resolve()
        .then(() => harness.interrupt?.())
        .catch(() => undefined),
      grace(INTERRUPT_GRACE_MS),
    ]);
    const late = await Promise.race([adapter, grace(INTERRUPT_GRACE_MS)]);
    const turn = late !== "grace" && late.kind === "turn" ? late.turn : undefined;
    return first === "timeout"
      ? {
          outcome: "timed_out",
          turn,
          error: resultError(
            "M3_TURN_TIMEOUT",
            `The turn did not finish within ${request.timeoutMs} ms; the harness was interrupted and the session ended timed_out.`,
            { retryable: true, details: { timeoutMs: request.timeoutMs } },
          ),
          endSession: ExecutionOutcome.TIMED_OUT,
        }
      : {
          outcome: "cancelled",
          turn,
          error: resultError("M3_TURN_CANCELLED", "The turn was cancelled by the test."),
          endSession: ExecutionOutcome.CANCELLED,
        };
  }
  if (first.kind === "error") {
    const message = first.error instanceof Error ? first.error.message : String(first.error);
    if (!harness.health().alive) {
      return {
        outcome: "failed",
        turn: undefined,
        error: harnessDied(harness, message),
        endSession: ExecutionOutcome.FAILED,
      };
    }
    const failure = toResultError(first.error, "M3_TURN_FAILED");
    return {
      outcome: "failed",
      turn: undefined,
      error: { ...failure, message: `The harness failed the turn: ${message}` },
      endSession: null,
    };
  }
  const turn = first.turn;
  if (!harness.health().alive) {
    return {
      outcome: "failed",
      turn,
      error: harnessDied(harness, turn.error),
      endSession: ExecutionOutcome.FAILED,
    };
  }
  return {
    outcome: turn.outcome,
    turn,
    error: turn.error === null ? null : resultError("M3_TURN_FAILED", turn.error),
    endSession: null,
  };
}
