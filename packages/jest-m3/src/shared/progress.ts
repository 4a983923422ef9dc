/**
 * Progress lines while sessions run, so a slow turn shows before it times out, whatever
 * the provider (live or scripted): one line when a turn is sent, one per tool call as it
 * crosses the wire and as it ends, one when the turn ends and one per finished session;
 * with the run's scripted model, also a line when its script cannot answer. On with
 * `M3_PROGRESS=1`, off with `M3_PROGRESS=0`; by default on when Jest's output is an
 * interactive terminal (not CI).
 */
import type { ExecutionResult, ToolCall, TurnResult } from "@jest-m3/core";
import { isUnavailable } from "@jest-m3/core/lean";
import { RUN_ENV } from "./hand-off.js";

/** The variable that turns progress lines on (`1`) or off (`0`). */
export const PROGRESS_ENV = RUN_ENV.progress;

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

/**
 * The lines for one model step of the run's scripted model: only the steps its script could
 * not answer as written (the tool calls and replies show from the wire, for every provider).
 */
export function modelStepLines(step: ModelStep, elapsedMs: number): string[] {
  if (step.side || step.conversation === null) return [];
  if (step.decision.kind !== "unmatched" && step.decision.kind !== "tool_not_offered") return [];
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

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** Which session and turn a line is about: `codex:gpt-5.5 turn 2`. */
function where(agent: string, turn: number | null): string {
  return turn === null ? `${agent} (outside turns)` : `${agent} turn ${turn}`;
}

/** The line for a turn sent to an agent. */
export function turnStartedLine(
  agent: string,
  turn: number,
  prompt: string,
  elapsedMs: number,
): string {
  return `jest-m3 ▸ ${seconds(elapsedMs)} ${where(agent, turn)} sent "${preview(prompt, 60)}"`;
}

/** The line for a tool call as its request crosses the wire, or as it ends. */
export function toolCallLine(
  agent: string,
  turn: number | null,
  call: ToolCall,
  phase: "started" | "ended",
  elapsedMs: number,
): string {
  const head = `jest-m3 ▸ ${seconds(elapsedMs)} ${where(agent, turn)}`;
  const name = `${call.server}:${call.tool}`;
  if (phase === "started") {
    const args = isUnavailable(call.arguments)
      ? ""
      : ` ${preview(JSON.stringify(call.arguments), 60)}`;
    return `${head} → ${name}${args}`;
  }
  const latency = isUnavailable(call.latencyMs) ? "" : ` in ${Math.round(call.latencyMs)} ms`;
  return `${head} ← ${name} ${call.status}${latency}`;
}

/** The line for a finished turn. */
export function turnFinishedLine(agent: string, turn: TurnResult, elapsedMs: number): string {
  const { snapshot } = turn;
  const took =
    snapshot.finishedAt === null ? "" : ` in ${seconds(snapshot.finishedAt - snapshot.createdAt)}`;
  return (
    `jest-m3 ▸ ${seconds(elapsedMs)} ${where(agent, snapshot.number)} ${snapshot.outcome ?? "ended"}${took}, ` +
    `${turn.toolCalls.length} tool call(s)`
  );
}
