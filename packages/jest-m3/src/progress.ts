/**
 * Progress lines while sessions run, so a slow turn shows before it times out: one line per
 * model step of the run's scripted model (a turn's tool calls and its reply, as the model
 * decides them) and one per finished session. On with `M3_PROGRESS=1`, off with
 * `M3_PROGRESS=0`; by default on when Jest's output is an interactive terminal (not CI).
 */
import type { ExecutionResult } from "@jest-m3/core";

/** The variable that turns progress lines on (`1`) or off (`0`). */
export const PROGRESS_ENV = "M3_PROGRESS";

/** Whether progress lines are on, from the variable, else from the terminal. */
export function progressEnabled(
  env: Readonly<Record<string, string | undefined>>,
  interactive: boolean,
): boolean {
  const value = env[PROGRESS_ENV]?.trim().toLowerCase();
  if (value === "1" || value === "true" || value === "on") return true;
  if (value === "0" || value === "false" || value === "off") return false;
  return interactive && !env.CI;
}

const preview = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A journal entry of the scripted model, as far as progress needs it. */
export interface ModelStep {
  readonly side: boolean;
  readonly conversation: { readonly turn: number; readonly user: string } | null;
  readonly decision: {
    readonly kind: string;
    readonly calls?: ReadonlyArray<{ readonly ref: string; readonly arguments: unknown }>;
    readonly text?: string;
    readonly tool?: string;
    readonly message?: string;
  };
}

/** The lines for one model step; none for side requests (titles, probes). */
export function modelStepLines(step: ModelStep, elapsedMs: number): string[] {
  if (step.side || step.conversation === null) return [];
  const at = `${(elapsedMs / 1000).toFixed(1)}s`;
  const head = `jest-m3 ▸ ${at} turn ${step.conversation.turn} "${preview(step.conversation.user, 50)}"`;
  const { decision } = step;
  switch (decision.kind) {
    case "call":
      return (decision.calls ?? []).map(
        (call) =>
          `${head}: model calls ${call.ref} ${preview(JSON.stringify(call.arguments) ?? "", 60)}`,
      );
    case "reply":
      return [`${head}: model replies "${preview(decision.text ?? "", 50)}"`];
    case "tool_search":
      return [`${head}: model searches the agent's tools`];
    case "unmatched":
      return [`${head}: NO RULE of the script matches`];
    case "tool_not_offered":
      return [
        `${head}: the script calls ${decision.tool ?? "a tool"}, which the agent was not offered`,
      ];
    default:
      return [
        `${head}: model ${decision.kind}${decision.message ? ` (${preview(decision.message, 60)})` : ""}`,
      ];
  }
}

/** The line for a finished session. */
export function sessionLine(result: ExecutionResult, testName: string): string {
  const { snapshot } = result;
  const seconds =
    snapshot.finishedAt === null
      ? ""
      : ` in ${((snapshot.finishedAt - snapshot.createdAt) / 1000).toFixed(1)}s`;
  return (
    `jest-m3 ▸ session ${snapshot.outcome ?? "ended"}${seconds}: ${snapshot.agent.name}, ` +
    `${result.turns.length} turn(s), ${snapshot.toolCallCount} tool call(s) — ${testName}`
  );
}
