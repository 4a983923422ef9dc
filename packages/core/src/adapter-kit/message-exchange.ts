/**
 * One exchange with an agent that answers on its message stream (no request id, e.g. a
 * command typed as a user message, answered by the message that ends it): subscribe, send,
 * and resolve with what `take` makes of the first message it accepts. The send's throw, the
 * agent's exit and the deadline reject it; every way, the subscription and the timer end.
 *
 * @example
 * ```ts
 * const result = await messageExchange({
 *   messages: (listener) => client.onMessage(listener),
 *   agent: client.agent,
 *   send: () => client.send({ type: "user", text: "/compact" }),
 *   take: (message) => (message.type === "result" ? message : undefined),
 *   timeoutMs: 5000,
 *   late: () => new Error("/compact took longer than 5000 ms"),
 *   exited: (exit) => new Error(`my-agent exited (${exit})`),
 * });
 * ```
 */
import type { AgentProcess } from "./agent-process.js";

/** What {@link messageExchange} watches, sends and takes, and how its failures are worded. */
export interface MessageExchange<M, R> {
  /** Calls `listener` with each of the agent's messages; returns the function that stops it. */
  messages(listener: (message: M) => void): () => void;
  readonly agent: Pick<AgentProcess, "onExit">;
  /** Sends what the agent answers (after the subscription, so no answer is missed). */
  send(): void;
  /** The exchange's result from `message`, or undefined to wait on. */
  take(message: M): R | undefined;
  readonly timeoutMs: number;
  /** The error of the deadline. */
  late(): Error;
  /** The error of the agent's exit. */
  exited(exit: string): Error;
}

/** See the module's description. */
export function messageExchange<M, R>(exchange: MessageExchange<M, R>): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const stops: (() => void)[] = [];
    const settle = (end: () => void): void => {
      for (const stop of stops.splice(0)) stop();
      end();
    };
    stops.push(
      exchange.messages((message) => {
        const taken = exchange.take(message);
        if (taken !== undefined) settle(() => resolve(taken));
      }),
      exchange.agent.onExit((exit) => settle(() => reject(exchange.exited(exit)))),
    );
    const timer = setTimeout(() => settle(() => reject(exchange.late())), exchange.timeoutMs);
    stops.push(() => clearTimeout(timer));
    try {
      exchange.send();
    } catch (error) {
      settle(() => reject(error));
    }
  });
}
