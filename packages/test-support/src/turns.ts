/** A session's turns run one after the other, the way most agent tests drive a session. */
import type { AgentSession, ExecutionResult, TurnResult } from "@jest-m3/core";

/**
 * Opens `session`, sends `prompts` one after the other (each turn awaited), and closes it:
 * the turns, in order, and the session's result.
 */
export async function turnsOf<const P extends readonly string[]>(
  session: AgentSession,
  prompts: P,
): Promise<{ turns: { [K in keyof P]: TurnResult }; result: ExecutionResult }> {
  const turns: TurnResult[] = [];
  {
    await using open = await session.open();
    for (const prompt of prompts) turns.push(await open.send(prompt));
  }
  return { turns: turns as { [K in keyof P]: TurnResult }, result: session.result };
}
