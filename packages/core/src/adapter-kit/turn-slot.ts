/**
 * One turn at a time on a session, with what every adapter's `send()`, `interrupt()`,
 * `health()` and `close()` share: a dead agent or a closed session gives a failed turn
 * with the stderr tail (no throw); a second turn while one runs throws; the turn's abort
 * signal interrupts the agent once; an interrupt the agent does not confirm within the
 * grace period ends the turn `interrupted` anyway; the agent's exit fails the running turn.
 * The adapter keeps its protocol: it makes the turn and says how to start and interrupt it.
 *
 * @example
 * ```ts
 * const slot = new TurnSlot<MyTurn>({ names: { agent: "My Agent" }, agent, interrupt: (turn) => client.request("cancel", { turn: turn.id }) });
 * const turn = await slot.run(request, new MyTurn(), (turn) => client.request("prompt", { text: request.text }));
 * ```
 */
import type {
  AdapterTurn,
  AdapterTurnOutcome,
  AdapterTurnRequest,
  HarnessHealth,
} from "../harness/contract.js";
import type { ReportedToolCall } from "../evidence/trace.js";
import { stderrSection } from "../errors.js";
import { AgentExited, errorMessage } from "./agent-errors.js";
import type { AgentNames } from "./agent-names.js";
import type { UsageTally } from "./reported-usage.js";

/** How long an interrupted turn waits for the agent to confirm, by default. */
export const INTERRUPT_GRACE_MS = 1500;

/** A turn as the slot needs it: the adapter's own collector of the agent's messages. */
export interface SlotTurn {
  readonly isFinished: boolean;
  /** Resolves once with the turn as the adapter reports it. */
  readonly done: Promise<AdapterTurn>;
  /** Ends the turn now (idempotent). */
  finish(outcome: AdapterTurnOutcome, error: string | null): void;
}

/** What the slot knows of the agent process (an {@link AgentProcess} fits). */
export interface SlotAgent {
  readonly exitDescription: string | undefined;
  onExit(listener: (exit: string) => void): () => void;
}

/** How a slot reaches its agent. */
export interface TurnSlotOptions<T extends SlotTurn> {
  readonly names: AgentNames;
  readonly agent: SlotAgent;
  /** The stderr tail for messages; "" where it is not this session's (a shared agent). */
  stderrTail(): string;
  /** Asks the agent to interrupt `turn`; called once per turn. */
  interrupt(turn: T): Promise<unknown> | void;
  /** How long the agent gets to confirm an interrupt (default {@link INTERRUPT_GRACE_MS}). */
  readonly graceMs?: number;
}

/** One turn at a time, for one session. */
export class TurnSlot<T extends SlotTurn> {
  /** The running or last turn. */
  current: T | undefined;
  private closed = false;
  /** An interrupt the agent did not confirm within the grace: the slot ended that turn itself. */
  private unconfirmed = false;
  private closing: Promise<void> | undefined;
  private readonly interrupted = new WeakMap<T, Promise<void>>();
  private readonly stopExit: () => void;

  constructor(private readonly options: TurnSlotOptions<T>) {
    this.stopExit = options.agent.onExit((exit) => {
      this.current?.finish(
        "failed",
        this.withTail(`${this.process} exited (${exit}) during the turn`),
      );
    });
  }

  /** True while a turn runs. */
  get busy(): boolean {
    return this.current !== undefined && !this.current.isFinished;
  }

  /** `text` with this session's stderr tail section. */
  withTail(text: string, tail: string = this.options.stderrTail()): string {
    return `${text}${stderrSection(tail, this.options.names.stderr ?? this.process)}`;
  }

  /**
   * Runs `turn`: `start` sends it to the agent (a throw fails the turn with the agent's
   * words; an {@link AgentExited} with its exit and stderr tail, as the agent's exit during
   * the turn); resolves with the turn once it ends. A dead agent or a closed slot gives a
   * failed turn at once, a running turn makes it throw.
   */
  async run(
    request: AdapterTurnRequest,
    turn: T,
    start: (turn: T) => Promise<unknown> | void,
  ): Promise<AdapterTurn> {
    const exit = this.options.agent.exitDescription;
    if (exit !== undefined || this.closed) {
      const why =
        exit !== undefined ? `${this.process} is not running (${exit})` : "the session is closed";
      return {
        outcome: "failed",
        response: null,
        error: this.withTail(why),
        toolCalls: [],
        events: [],
      };
    }
    if (this.busy) {
      throw new Error(
        `A ${this.options.names.agent} turn is still running on this session; one turn at a time.`,
      );
    }
    this.current = turn;
    if (request.signal.aborted) {
      turn.finish("interrupted", "The turn was aborted before it was sent.");
      return turn.done;
    }
    const onAbort = (): void => void this.interrupt();
    request.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await start(turn);
    } catch (error) {
      turn.finish(
        "failed",
        error instanceof AgentExited
          ? this.exitedWords(error)
          : `${this.options.names.agent} refused the turn: ${errorMessage(error)}`,
      );
    }
    try {
      return await turn.done;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * The words of a turn the agent's exit ended, from the {@link AgentExited} a request of
   * the turn rejected with: its exit and stderr tail (none of a shared agent's, whose tail
   * here is "").
   */
  exitedWords(error: AgentExited): string {
    const tail = this.options.stderrTail() === "" ? "" : error.stderrTail;
    return this.withTail(`${this.process} exited (${error.exit}) during the turn`, tail);
  }

  /** True once an interrupt of `turn` was asked for. */
  interruptRequested(turn: T): boolean {
    return this.interrupted.has(turn);
  }

  /**
   * Interrupts the running turn, if there is one: asks the agent once, and ends the turn
   * `interrupted` when the agent has not confirmed within the grace period.
   */
  interrupt(): Promise<void> {
    const turn = this.current;
    if (!turn || turn.isFinished) return Promise.resolve();
    let asked = this.interrupted.get(turn);
    if (!asked) {
      const graceMs = this.options.graceMs ?? INTERRUPT_GRACE_MS;
      const timer = setTimeout(() => {
        this.unconfirmed = true;
        const agent = this.options.names.agent;
        turn.finish(
          "interrupted",
          `The turn was interrupted; ${agent} did not confirm within ${graceMs} ms.`,
        );
      }, graceMs);
      void turn.done.then(() => clearTimeout(timer));
      asked = Promise.resolve(this.options.interrupt(turn)).then(
        () => undefined,
        () => undefined,
      );
      this.interrupted.set(turn, asked);
    }
    return asked;
  }

  /** Alive while the agent runs and the slot is open; otherwise how it ended. */
  health(): HarnessHealth {
    const exit = this.options.agent.exitDescription;
    if (exit !== undefined) return { alive: false, exit, stderrTail: this.options.stderrTail() };
    if (this.closed) return { alive: false, exit: "closed" };
    return { alive: true };
  }

  /**
   * Closes the slot: a running turn ends `interrupted`, later turns fail. Returns whether a
   * turn was running, or the agent never confirmed an interrupt the slot ended a turn
   * without (it may still be in that turn): a warm agent left so is not reusable.
   */
  close(): boolean {
    const midTurn = this.busy || this.unconfirmed;
    this.closed = true;
    this.current?.finish("interrupted", "The session closed during the turn.");
    this.stopExit();
    return midTurn;
  }

  /**
   * Closes the slot (see {@link close}) and runs `work` once with whether a turn was
   * running: every later call returns the same promise, so a session's `close()` that
   * returns this is idempotent.
   */
  shutdown(work: (midTurn: boolean) => Promise<void>): Promise<void> {
    this.closing ??= work(this.close());
    return this.closing;
  }

  private get process(): string {
    return this.options.names.process ?? this.options.names.agent;
  }
}

/** What a turn's collector gathered, for {@link finishedTurn}. */
export interface TurnParts {
  /** The agent's final reply, or null when it gave none. */
  readonly text: string | null;
  readonly toolCalls: readonly ReportedToolCall[];
  /** The turn's raw events (copied: the collector may go on keeping its own). */
  readonly events: readonly unknown[];
  /** The token usage the agent reported over the turn. */
  readonly usage: UsageTally;
}

/**
 * The turn a collector reports once it ended with `outcome` and `error`: the reply, the
 * reported calls, a copy of the events and the agent's own usage.
 *
 * @example
 * ```ts
 * this.resolve(finishedTurn("completed", null, { text: this.reply, toolCalls, events: this.events, usage: this.usage }));
 * ```
 */
export function finishedTurn(
  outcome: AdapterTurnOutcome,
  error: string | null,
  parts: TurnParts,
): AdapterTurn {
  return {
    outcome,
    response: parts.text === null ? null : { text: parts.text },
    error,
    toolCalls: parts.toolCalls,
    events: parts.events.slice(),
    ...parts.usage.turnUsage(),
  };
}
