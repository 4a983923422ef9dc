/**
 * What a session on a {@link TurnSlot} says the same way in every adapter: its agent's
 * process id, its interrupt and its health, all the slot's. The adapter's session extends
 * it, makes its slot and keeps `send()` and `close()` (and overrides `interrupt()` where its
 * agent needs more than the slot's).
 *
 * @example
 * ```ts
 * class MySession extends SlotSession<MyTurn> implements HarnessSession {
 *   protected readonly slot: TurnSlot<MyTurn>;
 *   constructor(protected readonly client: MyClient, readonly id: string) {
 *     super();
 *     this.slot = new TurnSlot<MyTurn>({ names: { agent: "My Agent" }, agent: client.agent, stderrTail: () => client.agent.stderrTail(), interrupt: () => client.request("cancel") });
 *   }
 *   send(request: AdapterTurnRequest) { return this.slot.run(request, new MyTurn(), () => this.client.request("prompt", { text: request.text })); }
 *   close() { return this.slot.shutdown(() => this.client.close(1500)); }
 * }
 * ```
 */
import type { HarnessHealth } from "../harness/contract.js";
import type { SlotTurn, TurnSlot } from "./turn-slot.js";

/** See the module's description. */
export abstract class SlotSession<T extends SlotTurn> {
  /** The session's turns, one at a time. */
  protected abstract readonly slot: TurnSlot<T>;
  /** Whatever holds the agent's process (the adapter's client). */
  protected abstract readonly client: { readonly process: { readonly pid?: number } };

  /** The agent's process id (for diagnosis and fault tests). */
  get pid(): number | undefined {
    return this.client.process.pid;
  }

  /** Interrupts the running turn, if there is one (see {@link TurnSlot.interrupt}). */
  interrupt(): Promise<void> {
    return this.slot.interrupt();
  }

  /** Alive while the agent runs and the session is open; otherwise how it ended. */
  health(): HarnessHealth {
    return this.slot.health();
  }
}
